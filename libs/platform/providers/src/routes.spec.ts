import { formatDuration, SandboxRouteProvider } from './routes';

describe('SandboxRouteProvider', () => {
  const routes = new SandboxRouteProvider();

  describe('swaps', () => {
    it.each([
      ['base', 'Aerodrome'],
      ['bsc', 'PancakeSwap'],
    ])('swaps on one chain (%s) in one ~15 s hop on its DEX, %s', async (chain, dex) => {
      expect(await routes.swapRoute({ fromChain: chain, toChain: chain, fromToken: 'USDC', toToken: 'ETH' })).toEqual({
        steps: 1,
        estimatedSeconds: 15,
        providers: [dex],
        legs: [{ kind: 'swap', chain, fromToken: 'USDC', toToken: 'ETH', provider: dex }],
      });
    });

    it('swaps across chains in three steps when neither token can be bridged: source swap, bridge, destination swap', async () => {
      expect(await routes.swapRoute({ fromChain: 'base', toChain: 'bsc', fromToken: 'cbBTC', toToken: 'BNB' })).toEqual({
        steps: 3,
        estimatedSeconds: 210,
        providers: ['Aerodrome', 'Stargate', 'PancakeSwap'],
        // Carried through USDC: swapped to it on base, bridged, swapped from it on bsc.
        legs: [
          { kind: 'swap', chain: 'base', fromToken: 'cbBTC', toToken: 'USDC', provider: 'Aerodrome' },
          { kind: 'bridge', fromChain: 'base', toChain: 'bsc', token: 'USDC', provider: 'Stargate' },
          { kind: 'swap', chain: 'bsc', fromToken: 'USDC', toToken: 'BNB', provider: 'PancakeSwap' },
        ],
      });
    });

    it('only bridges when the same bridgeable token is on both sides', async () => {
      expect(await routes.swapRoute({ fromChain: 'base', toChain: 'arbitrum', fromToken: 'USDC', toToken: 'USDC' })).toEqual({
        steps: 1,
        estimatedSeconds: 120,
        providers: ['Across'],
        legs: [{ kind: 'bridge', fromChain: 'base', toChain: 'arbitrum', token: 'USDC', provider: 'Across' }],
      });
    });

    it('skips the source swap when the source token can be bridged', async () => {
      expect(await routes.swapRoute({ fromChain: 'base', toChain: 'bsc', fromToken: 'USDC', toToken: 'BNB' })).toMatchObject({
        steps: 2,
        providers: ['Stargate', 'PancakeSwap'],
      });
    });

    it('skips the destination swap when the wanted token can be bridged', async () => {
      expect(await routes.swapRoute({ fromChain: 'bsc', toChain: 'base', fromToken: 'CNGN', toToken: 'USDT' })).toMatchObject({
        steps: 2,
        providers: ['PancakeSwap', 'Stargate'],
        legs: [
          { kind: 'swap', chain: 'bsc', fromToken: 'CNGN', toToken: 'USDT', provider: 'PancakeSwap' },
          { kind: 'bridge', fromChain: 'bsc', toChain: 'base', token: 'USDT', provider: 'Stargate' },
        ],
      });
    });

    it('reaches solana through Mayan', async () => {
      expect(await routes.swapRoute({ fromChain: 'base', toChain: 'solana', fromToken: 'ETH', toToken: 'SOL' })).toMatchObject({
        providers: ['Mayan', 'Jupiter'],
      });
    });

    it('estimates every cross-chain swap at two to five minutes', async () => {
      const chains = ['base', 'bsc', 'ethereum', 'polygon', 'arbitrum', 'avalanche', 'solana'];
      for (const fromChain of ['base', 'bsc']) {
        for (const toChain of chains.filter((chain) => chain !== fromChain)) {
          for (const [fromToken, toToken] of [
            ['USDC', 'USDC'],
            ['cbBTC', 'ETH'],
            ['CNGN', 'BNB'],
          ]) {
            const route = await routes.swapRoute({ fromChain, toChain, fromToken, toToken });
            expect(route.estimatedSeconds).toBeGreaterThanOrEqual(120);
            expect(route.estimatedSeconds).toBeLessThanOrEqual(300);
            expect(route.steps).toBe(route.providers.length);
            expect(route.legs.map((leg) => leg.provider)).toEqual(route.providers);
          }
        }
      }
    });
  });

  describe('transfers', () => {
    it('bridges the same token in one step', async () => {
      expect(await routes.bridgeRoute({ fromChain: 'base', toChain: 'arbitrum', token: 'USDC', toToken: 'USDC' })).toEqual({
        steps: 1,
        estimatedSeconds: 120,
        bridge: 'Across',
        legs: [{ kind: 'bridge', fromChain: 'base', toChain: 'arbitrum', token: 'USDC', provider: 'Across' }],
      });
    });

    it('adds a destination swap when the token changes', async () => {
      expect(await routes.bridgeRoute({ fromChain: 'bsc', toChain: 'avalanche', token: 'USDT', toToken: 'AVAX' })).toEqual({
        steps: 2,
        estimatedSeconds: 195,
        bridge: 'Stargate',
        legs: [
          { kind: 'bridge', fromChain: 'bsc', toChain: 'avalanche', token: 'USDT', provider: 'Stargate' },
          { kind: 'swap', chain: 'avalanche', fromToken: 'USDT', toToken: 'AVAX', provider: 'Trader Joe' },
        ],
      });
    });

    it('bridges to solana through Mayan', async () => {
      expect(await routes.bridgeRoute({ fromChain: 'bsc', toChain: 'solana', token: 'USDT', toToken: 'SOL' })).toMatchObject({
        steps: 2,
        bridge: 'Mayan',
      });
    });

    it('sends on one chain directly, in one step', async () => {
      expect(await routes.bridgeRoute({ fromChain: 'base', toChain: 'base', token: 'USDC', toToken: 'USDC' })).toEqual({
        steps: 1,
        estimatedSeconds: 15,
        bridge: 'direct',
        legs: [],
      });
    });

    it('swaps on one chain directly when the token changes, paying the recipient from the DEX', async () => {
      expect((await routes.bridgeRoute({ fromChain: 'base', toChain: 'base', token: 'USDC', toToken: 'ETH' })).legs).toEqual([
        { kind: 'swap', chain: 'base', fromToken: 'USDC', toToken: 'ETH', provider: 'Aerodrome' },
      ]);
    });
  });

  it('refuses a chain it has no DEX for, rather than inventing one', async () => {
    await expect(routes.swapRoute({ fromChain: 'tron', toChain: 'tron', fromToken: 'USDT', toToken: 'TRX' })).rejects.toThrow('tron');
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '~0 seconds'],
    [1, '~1 second'],
    [15, '~15 seconds'],
    [89, '~89 seconds'],
    [90, '~2 minutes'],
    [135, '~2 minutes'],
    [150, '~3 minutes'],
    [180, '~3 minutes'],
    [2700, '~45 minutes'],
    [3600, '~1 hour'],
    [5400, '~2 hours'],
  ])('says %i seconds is %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });

  it.each([-1, Number.NaN])('refuses %p', (seconds) => {
    expect(() => formatDuration(seconds)).toThrow(Error);
  });
});
