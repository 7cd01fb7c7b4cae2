import { getAddress, type Address } from 'viem';
import { EVM_NATIVE_ADDRESS, getChain } from '@ramp/chains';
import { forwarderFactoryAddress, LOCAL_TEST_CHAINS, NATIVE_TOKEN, smartAccountContracts, type ChainSettings } from '@ramp/evm';
import { chainContractsOf, DEX_NAME, INTENT_BRIDGE_NAME, namedContracts } from './platform-contracts';

const accounts = {
  faucet: '0x00000000000000000000000000000000000000f1' as Address,
  hotWallet: '0x00000000000000000000000000000000000000f2' as Address,
  deployer: '0x00000000000000000000000000000000000000f3' as Address,
  paymasterOwner: '0x00000000000000000000000000000000000000f4' as Address,
};
const localBase = LOCAL_TEST_CHAINS.find((chain) => chain.chain === 'base')!;
const { localPort: _local, bundlerUrl: _bundler, localBundlerPort: _localBundler, ...baseSepolia } = { ...localBase, rpcUrl: 'https://sepolia.base.org' };
const baseMainnet: ChainSettings = { ...baseSepolia, chainId: 8453, rpcUrl: 'https://mainnet.base.org' };

describe('chain contracts - where each chain keeps its tokens, pools and intent pool', () => {
  it("a local test chain carries the platform's test tokens, pools and intent pool, and has a faucet", () => {
    const { network, dex, tokens, spec } = chainContractsOf('test', localBase, accounts);
    expect(spec).toBeDefined();
    expect(network).toMatchObject({
      chain: 'base',
      chainId: localBase.chainId,
      confirmations: localBase.confirmations,
      hotWallet: accounts.hotWallet,
      faucet: true,
    });
    expect(network.contracts.dex).toEqual({ name: DEX_NAME, factory: dex!.factory, router: dex!.router, hub: dex!.hub, pairs: dex!.pairs });
    expect(network.contracts.bridge?.name).toBe(INTENT_BRIDGE_NAME);
    expect(tokens.map((token) => token.symbol)).toEqual(getChain('base').tokens.map((token) => token.symbol));
    for (const token of tokens) {
      if (token.address === NATIVE_TOKEN) continue;
      // Lower case, as the watcher's and the send queue's tables hold them.
      expect(token.address).toBe(network.contracts.tokens[token.symbol]!.toLowerCase());
    }
    expect(tokens.filter((token) => token.address === NATIVE_TOKEN).map((token) => token.symbol)).toEqual(['ETH']);
  });

  it("a test chain on a public network has the platform's test tokens at the same addresses, but no pools, intent pool or faucet of its", () => {
    const local = chainContractsOf('test', localBase, accounts);
    const remote = chainContractsOf('test', baseSepolia, accounts);
    expect(remote.tokens).toEqual(local.tokens);
    expect(remote.dex).toBeUndefined();
    expect(remote.network.contracts.dex).toBeUndefined();
    expect(remote.network.contracts.bridge).toBeUndefined();
    expect(remote.network.faucet).toBe(false);
  });

  it("a live chain carries the registry's real tokens and the hot wallet's forwarder factory, and nothing of the platform's test contracts", () => {
    const { network, dex, tokens, spec } = chainContractsOf('live', baseMainnet, accounts);
    expect(spec).toBeUndefined();
    expect(dex).toBeUndefined();
    expect(network.faucet).toBe(false);
    expect(network.contracts.forwarderFactory).toBe(forwarderFactoryAddress(accounts.hotWallet));
    expect(network.contracts.wrappedNative).toBe(getAddress(EVM_NATIVE_ADDRESS));
    const usdc = getChain('base').tokens.find((token) => token.symbol === 'USDC')!;
    expect(network.contracts.tokens.USDC).toBe(getAddress(usdc.contractAddress));
    expect(tokens.find((token) => token.symbol === 'USDC')!.address).toBe(usdc.contractAddress.toLowerCase());
  });

  it("a chain with a bundler names the smart accounts' EntryPoint, factory and paymaster (checked at start); one without names none", () => {
    const { network } = chainContractsOf('test', localBase, accounts);
    expect(network.contracts.smartAccounts).toEqual(smartAccountContracts(accounts.paymasterOwner));
    expect(namedContracts(network).map(([name]) => name)).toEqual(
      expect.arrayContaining(['smartAccounts.entryPoint', 'smartAccounts.accountFactory', 'smartAccounts.paymaster']),
    );
    expect(chainContractsOf('test', baseSepolia, accounts).network.contracts.smartAccounts).toBeUndefined();
    const arbitrum = LOCAL_TEST_CHAINS.find((chain) => chain.chain === 'arbitrum')!;
    expect(chainContractsOf('test', arbitrum, accounts).network.contracts.smartAccounts).toBeUndefined();
    const withProvider = chainContractsOf('live', { ...baseMainnet, bundlerUrl: 'https://bundler.example/base' }, accounts);
    expect(withProvider.network.contracts.smartAccounts?.entryPoint).toBe('0x0000000071727De22E5E9d8BAf0edAc6f37da032');
  });
});
