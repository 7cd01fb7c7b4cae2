import { createPublicClient, createWalletClient, http, parseEther, type PublicClient } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { getChain } from '@ramp/chains';
import { deployPlatformContracts, LOCAL_CHAIN_ACCOUNTS, LOCAL_TEST_CHAINS, seedPools, testContractsOf } from '@ramp/evm';
import { AnvilNode } from '@ramp/testing';
import { chainContractsOf, contractCodes, missingContracts } from './platform-contracts';

/**
 * The chain service runs a chain only when every contract its network names is there (`getCode`): on a node where the
 * platform's contracts were never deployed (a public network the operator has not prepared, a wrong address), each is
 * named; once deployed, none is.
 */
describe('chain contracts - every contract a chain names is on the chain, or the chain is not run', () => {
  const node = new AnvilNode({ chainId: 84532 });
  let client: PublicClient;

  beforeAll(async () => {
    await node.start();
    client = createPublicClient({ transport: http(node.rpcUrl) }) as PublicClient;
  }, 60_000);

  afterAll(async () => {
    await node.stop();
  });

  it('names each missing contract, and none once the platform deployed and seeded them', async () => {
    const account = (index: number) => mnemonicToAccount(LOCAL_CHAIN_ACCOUNTS.mnemonic, { addressIndex: index });
    const accounts = {
      faucet: account(LOCAL_CHAIN_ACCOUNTS.faucetIndex).address,
      deployer: account(LOCAL_CHAIN_ACCOUNTS.deployerIndex).address,
      hotWallet: account(5).address,
      paymasterOwner: account(6).address,
    };
    // No bundler: the smart accounts' parts are deployed and checked by smart-accounts.int-spec.ts and the chain service.
    const { bundlerUrl: _bundler, localBundlerPort: _localBundler, ...base } = LOCAL_TEST_CHAINS.find((chain) => chain.chain === 'base')!;
    const settings = { ...base, rpcUrl: node.rpcUrl, rpcUrls: [node.rpcUrl], localPort: node.port };
    const { network, spec, dex } = chainContractsOf('test', settings, accounts);
    const missing = missingContracts(await contractCodes(client, network));
    expect(missing).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^tokens\.USDC \(0x[0-9a-fA-F]{40}\)$/),
        expect.stringMatching(/^forwarderFactory /),
        expect.stringMatching(/^dex\.router /),
        expect.stringMatching(/^bridge\.pool /),
      ]),
    );
    expect(missing.some((entry) => entry.startsWith('tokens.ETH'))).toBe(false); // the native coin has no contract

    const deployer = createWalletClient({ account: account(LOCAL_CHAIN_ACCOUNTS.deployerIndex), transport: http(node.rpcUrl) });
    await deployPlatformContracts(
      client,
      deployer,
      spec ?? testContractsOf(getChain('base'), accounts.faucet, accounts.hotWallet, accounts.deployer),
      parseEther('1'),
    );
    // The pairs exist once the pools are seeded.
    expect(missingContracts(await contractCodes(client, network)).filter((entry) => !entry.startsWith('dex.pairs.'))).toEqual([]);
    await seedPools(client, deployer, spec!.pools, dex!);
    expect(missingContracts(await contractCodes(client, network))).toEqual([]);
  }, 120_000);
});
