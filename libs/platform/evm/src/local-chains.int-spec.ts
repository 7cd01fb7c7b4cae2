import { createPublicClient, createWalletClient, http, parseEther, type Address } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { Config } from '@ramp/config';
import { getChain, type ChainName } from '@ramp/chains';
import { AnvilNode, ANVIL_MNEMONIC } from '@ramp/testing';
import { TestToken } from './artifacts.generated';
import { LOCAL_CHAIN_ACCOUNTS, resolveChains, type ChainSettings } from './chain-settings';
import { HdCustody } from './custody';
import { deployPlatformContracts, platformContractAddresses, testContractsOf } from './deployment';

// The faucet mints (it is the test tokens' minter, so the addresses are the chain service's); a deployer of this test's
// own sends, so that it never takes a nonce the chain service's faucet queue counts on.
const faucet = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: LOCAL_CHAIN_ACCOUNTS.faucetIndex });
const deployer = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 2 });
// The chain service's pool provider: it receives the test tokens' initial supply, which is part of their addresses.
const provider = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: LOCAL_CHAIN_ACCOUNTS.deployerIndex });
const custody = HdCustody.development();

/** Deploys the platform's test contracts on a chain as its settings describe it, and reads one token's decimals back. */
async function deployOn(settings: ChainSettings): Promise<{ chainId: number; usdtDecimals: number; tokens: Record<string, Address> }> {
  const client = createPublicClient({ transport: http(settings.rpcUrl) });
  const wallet = createWalletClient({ account: deployer, transport: http(settings.rpcUrl) });
  const spec = testContractsOf(getChain(settings.chain as ChainName), faucet.address, custody.signer(settings.hotWalletPath).address, provider.address);
  const contracts = await deployPlatformContracts(client, wallet, spec, parseEther('1'));
  expect(contracts).toEqual(platformContractAddresses(spec));
  const usdtDecimals = await client.readContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'decimals' });
  return { chainId: await client.getChainId(), usdtDecimals, tokens: contracts.tokens };
}

describe('local chains - the test chains of the settings, started by the scripts, or any other nodes by settings alone', () => {
  it("the nodes npm test started answer with the chain ids of TEST_CHAINS, and take the platform's contracts with each chain's decimals", async () => {
    const chains = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS').filter((chain) => chain.localPort !== undefined);
    expect(chains.map((chain) => chain.chain)).toEqual(['base', 'bsc', 'arbitrum']);
    const deployed = await Promise.all(chains.map(deployOn));
    expect(deployed.map((chain) => [chain.chainId, chain.usdtDecimals])).toEqual([
      [84532, 6],
      [97, 18],
      [421614, 6],
    ]);
  }, 60_000);

  it('points the test chains at a second set of nodes through TEST_CHAINS alone, as one would at Base Sepolia', async () => {
    const second = [new AnvilNode({ chainId: 84532 }), new AnvilNode({ chainId: 97 })];
    await Promise.all(second.map((node) => node.start()));
    try {
      const env = { TEST_CHAINS: JSON.stringify({ base: { rpcUrl: second[0].rpcUrl }, bsc: { rpcUrl: second[1].rpcUrl }, arbitrum: null }) };
      const chains = resolveChains('test', new Config(env).json('testChains'), 'TEST_CHAINS');
      expect(chains.map((chain) => [chain.chain, chain.rpcUrl, chain.localPort])).toEqual([
        ['base', second[0].rpcUrl, undefined],
        ['bsc', second[1].rpcUrl, undefined],
      ]);
      const deployed = await Promise.all(chains.map(deployOn));
      expect(deployed.map((chain) => chain.chainId)).toEqual([84532, 97]);
      // The same bytes through the same deployer: the same addresses as on the default nodes.
      const onDefault = platformContractAddresses(
        testContractsOf(getChain('base'), faucet.address, custody.signer(chains[0].hotWalletPath).address, provider.address),
      );
      expect(deployed[0].tokens).toEqual(onDefault.tokens);
    } finally {
      await Promise.all(second.map((node) => node.stop()));
    }
  }, 60_000);
});
