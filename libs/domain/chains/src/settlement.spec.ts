import type { ChainNetwork } from '@ramp/contracts';
import { liveChainData } from './live-chains';
import { EVM_NATIVE_ADDRESS, getChain } from './registry';
import { chainsOf } from './settlement';

const baseSepolia: ChainNetwork = {
  chain: 'base',
  chainId: 84532,
  confirmations: 1,
  hotWallet: '0x0000000000000000000000000000000000000001',
  contracts: {
    tokens: { USDC: '0x00000000000000000000000000000000000000aA', CNGN: '0x00000000000000000000000000000000000000bB' },
    wrappedNative: '0x2',
    forwarderFactory: '0x3',
  },
  faucet: true,
};

describe('chainsOf - the chains list of an environment, from the networks the chain service runs', () => {
  it('a chain with a network takes its chain id, depth and token contracts, and says onchain', () => {
    const base = chainsOf([baseSepolia]).find((chain) => chain.chain === 'base')!;
    expect(base).toMatchObject({ chain: 'base', chainId: 84532, settlement: 'onchain', confirmations: 1, type: 'primary' });
    expect(base.tokens.find((token) => token.symbol === 'USDC')!.contractAddress).toBe('0x00000000000000000000000000000000000000aA');
    expect(base.tokens.find((token) => token.symbol === 'ETH')!.contractAddress).toBe(EVM_NATIVE_ADDRESS);
    // Decimals stay the registry's: the test tokens are deployed with the real ones.
    const registry = getChain('base').tokens;
    expect(base.tokens.map((token) => [token.symbol, token.decimals])).toEqual(
      registry.filter((token) => ['CNGN', 'USDC', 'ETH'].includes(token.symbol)).map((token) => [token.symbol, token.decimals]),
    );
    expect(base.dex).toBeUndefined();
  });

  it('lists only the tokens the network carries: a live chain shows none of those it withholds (LIVE_CHAINS), at no unconfirmed address', () => {
    const live = liveChainData('base')!;
    const mainnet: ChainNetwork = {
      ...baseSepolia,
      chainId: 8453,
      faucet: false,
      contracts: { ...baseSepolia.contracts, tokens: Object.fromEntries(live.tokens.map((token) => [token.symbol, token.address])) },
    };
    const base = chainsOf([mainnet]).find((chain) => chain.chain === 'base')!;
    expect(base.tokens.map((token) => [token.symbol, token.contractAddress])).toEqual([
      ['CNGN', '0x46C85152bFe9f96829aA94755D9f915F9B10EF5F'],
      ['USDC', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'],
      ['ETH', EVM_NATIVE_ADDRESS],
    ]);
    expect(live.withheld.map((entry) => entry.symbol)).toEqual(['USDT', 'cbBTC']);
    // A chain the environment does not run keeps the whole registry, simulated.
    expect(
      chainsOf([])
        .find((chain) => chain.chain === 'base')!
        .tokens.map((token) => token.symbol),
    ).toContain('USDT');
  });

  it("a chain with the platform's pools shows its DEX (router, factory, hub), not its pairs", () => {
    const dex = { name: 'Uniswap V2', router: '0x4', factory: '0x5', hub: 'USDC', pairs: { CNGN: '0x6' } };
    const base = chainsOf([{ ...baseSepolia, contracts: { ...baseSepolia.contracts, dex } }]).find((chain) => chain.chain === 'base')!;
    expect(base.dex).toEqual({ name: 'Uniswap V2', router: '0x4', factory: '0x5', hub: 'USDC', wrappedNative: '0x2' });
  });

  it("a live chain shows its third party's DEX once its wrapped native coin is known (bsc: once the router was asked)", () => {
    const dex = { name: 'PancakeSwap V2', router: '0x7', factory: '0x8', hub: 'USDT', pairs: {} };
    const bsc = (wrappedNative: string) =>
      chainsOf([{ ...baseSepolia, chain: 'bsc', chainId: 56, faucet: false, contracts: { ...baseSepolia.contracts, wrappedNative, dex } }]).find(
        (chain) => chain.chain === 'bsc',
      )!;
    expect(bsc(EVM_NATIVE_ADDRESS).dex).toBeUndefined();
    expect(bsc('0x9').dex).toEqual({ name: 'PancakeSwap V2', router: '0x7', factory: '0x8', hub: 'USDT', wrappedNative: '0x9' });
  });

  it("a chain with the platform's intent pool shows the bridge's name and pool", () => {
    const base = chainsOf([{ ...baseSepolia, contracts: { ...baseSepolia.contracts, bridge: { name: 'Ramp Intents', pool: '0x7' } } }]).find(
      (chain) => chain.chain === 'base',
    )!;
    expect(base.bridge).toEqual({ name: 'Ramp Intents', pool: '0x7' });
    expect(chainsOf([baseSepolia]).find((chain) => chain.chain === 'base')!.bridge).toBeUndefined();
  });

  it('a local test chain shows no explorer: its hashes are on its node alone, on no public explorer', () => {
    const base = chainsOf([baseSepolia]).find((chain) => chain.chain === 'base')!;
    expect(base).not.toHaveProperty('explorerUrl');
    expect(JSON.parse(JSON.stringify(base))).not.toHaveProperty('explorerUrl');
  });

  it('a public network (a public test network, a mainnet) keeps its explorer', () => {
    const publicNetwork: ChainNetwork = { ...baseSepolia, faucet: false };
    expect(chainsOf([publicNetwork]).find((chain) => chain.chain === 'base')!.explorerUrl).toBe(getChain('base').explorerUrl);
  });

  it('every other chain keeps the registry and says simulated, with no depth', () => {
    const chains = chainsOf([baseSepolia]);
    const bsc = chains.find((chain) => chain.chain === 'bsc')!;
    expect(bsc).toMatchObject({ chainId: getChain('bsc').chainId, explorerUrl: getChain('bsc').explorerUrl, settlement: 'simulated' });
    expect(bsc.confirmations).toBeUndefined();
    expect(chains.filter((chain) => chain.settlement === 'onchain').map((chain) => chain.chain)).toEqual(['base']);
    expect(chainsOf([]).every((chain) => chain.settlement === 'simulated')).toBe(true);
  });
});
