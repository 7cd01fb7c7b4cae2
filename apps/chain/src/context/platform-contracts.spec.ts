import { getAddress, type Address } from 'viem';
import { EVM_NATIVE_ADDRESS, getChain, LIVE_CHAINS, liveChainData } from '@ramp/chains';
import {
  developmentSigner,
  forwarderFactoryAddress,
  HdCustody,
  LOCAL_CHAIN_ACCOUNTS,
  LOCAL_TEST_CHAINS,
  NATIVE_TOKEN,
  smartAccountContracts,
  type ChainSettings,
} from '@ramp/evm';
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

  it("a live chain carries only the tokens its committed live configuration offers, at their confirmed addresses, the wrapped native coin where confirmed, and nothing of the platform's test contracts", () => {
    const { network, dex, tokens, spec } = chainContractsOf('live', baseMainnet, accounts);
    expect(spec).toBeUndefined();
    expect(dex).toBeUndefined();
    expect(network.faucet).toBe(false);
    expect(network.contracts.forwarderFactory).toBe(forwarderFactoryAddress(accounts.hotWallet));
    const base = liveChainData('base')!;
    expect(network.contracts.wrappedNative).toBe(base.wrappedNative!.address);
    expect(network.contracts.tokens).toEqual({ CNGN: base.tokens[0]!.address, USDC: base.tokens[1]!.address });
    // USDT and cbBTC are in the chains list, but no primary source confirms them on Base: never offered live.
    expect(tokens.map((token) => [token.symbol, token.decimals, token.address])).toEqual([
      ['CNGN', 6, '0x46c85152bfe9f96829aa94755d9f915f9b10ef5f'],
      ['USDC', 6, '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'],
      ['ETH', 18, NATIVE_TOKEN],
    ]);
    const bsc = chainContractsOf('live', { ...baseMainnet, chain: 'bsc', chainId: 56, rpcUrl: 'https://bsc-dataseed.bnbchain.org' }, accounts);
    expect(bsc.tokens.map((token) => [token.symbol, token.decimals])).toEqual([
      ['CNGN', 6],
      ['USDT', 18],
      ['BNB', 18],
      ['ETH', 18],
    ]);
    // WBNB is not confirmed: no wrapped native coin is named until the router is asked for it (findLiveDex).
    expect(bsc.network.contracts.wrappedNative).toBe(getAddress(EVM_NATIVE_ADDRESS));
    expect(namedContracts(bsc.network).map(([name]) => name)).not.toContain('wrappedNative');
    // Each names its DEX's factory and router from the committed data, and no pair: the factory tells which exist.
    for (const [chain, contracts] of [
      ['base', network],
      ['bsc', bsc.network],
    ] as const) {
      const data = liveChainData(chain)!;
      expect(contracts.contracts.dex).toEqual({
        name: data.dex.name,
        factory: data.dex.factory.address,
        router: data.dex.router.address,
        hub: data.dex.hub,
        pairs: {},
      });
      const withPair = { ...contracts, contracts: { ...contracts.contracts, dex: { ...contracts.contracts.dex!, pairs: { CNGN: base.tokens[0]!.address } } } };
      const names = namedContracts(withPair).map(([name]) => name);
      expect(names).toEqual(expect.arrayContaining(['dex.factory', 'dex.router']));
      expect(names).not.toContain('dex.pairs.CNGN');
    }
  });

  it('refuses to run live a chain without a committed live configuration, or under another chain id than it has', () => {
    const arbitrum = { ...baseMainnet, chain: 'arbitrum', chainId: 42161 };
    expect(() => chainContractsOf('live', arbitrum, accounts)).toThrow('arbitrum has no committed live configuration');
    expect(() => chainContractsOf('live', { ...baseMainnet, chainId: 84532 }, accounts)).toThrow(
      "base's live configuration is chain id 8453, but its settings say 84532",
    );
  });

  it("shares no address with the test chains' contracts, but the EntryPoint, which is the same canonical one", () => {
    const development = {
      faucet: developmentSigner(LOCAL_CHAIN_ACCOUNTS.mnemonic, LOCAL_CHAIN_ACCOUNTS.faucetIndex).address,
      deployer: developmentSigner(LOCAL_CHAIN_ACCOUNTS.mnemonic, LOCAL_CHAIN_ACCOUNTS.deployerIndex).address,
      hotWallet: HdCustody.development().signer(localBase.hotWalletPath).address,
      paymasterOwner: accounts.paymasterOwner,
    };
    const live = LIVE_CHAINS.flatMap((chain) => [
      ...chain.tokens,
      ...(chain.wrappedNative ? [chain.wrappedNative] : []),
      chain.dex.factory,
      chain.dex.router,
    ]).map((contract) => contract.address.toLowerCase());
    for (const settings of LOCAL_TEST_CHAINS) {
      const named = namedContracts(chainContractsOf('test', settings, development).network);
      expect(named.length).toBeGreaterThan(5);
      for (const [name, address] of named) {
        if (name === 'smartAccounts.entryPoint') continue;
        expect([settings.chain, name, live.includes(address.toLowerCase())]).toEqual([settings.chain, name, false]);
      }
    }
    for (const chain of LIVE_CHAINS) expect(chain.entryPoint.address).toBe(smartAccountContracts(accounts.paymasterOwner).entryPoint);
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
