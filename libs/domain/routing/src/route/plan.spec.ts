import { CROSS_CHAIN_LEG_SPECS, crossChainOrder, USD_PRICES } from './fixtures.spec-helper';
import { NO_VENUES, onchainProviders, placeOf, planRoute, scaleLeg, settleLegs, venuesOf, type PlannedLeg, type RoutePlanInput, type Venues } from './plan';
import { netOfFees, planOrder } from './route';

/** planRoute for `legs` and the quote's figures, at 1% slippage and `USD_PRICES` unless the figures say otherwise. */
const plan = (
  legs: RoutePlanInput['legs'],
  figures: Omit<RoutePlanInput, 'legs' | 'slippagePercent' | 'usdPrices'> & Partial<Pick<RoutePlanInput, 'slippagePercent' | 'usdPrices'>>,
) => planRoute({ legs, slippagePercent: '1', usdPrices: USD_PRICES, ...figures });

/** base USDC -> ETH (Aerodrome), ETH base -> bsc (Across), bsc ETH -> BNB (PancakeSwap), for 993 net of fees. */
const crossChainPlan = () => plan(CROSS_CHAIN_LEG_SPECS, { amountIn: '993', toAmount: '1.527692307692307692', minimumToAmount: '1.512415384615384615' });

describe('planRoute', () => {
  it("gives a last bridge the quote's minimum, not what it carries: the swap before it may give a little less", () => {
    const legs = plan(
      [
        { kind: 'swap', chain: 'base', fromToken: 'ETH', toToken: 'USDC', provider: 'Aerodrome' },
        { kind: 'bridge', fromChain: 'base', toChain: 'bsc', token: 'USDC', provider: 'Stargate' },
      ],
      { amountIn: '0.03', toAmount: '95.5', minimumToAmount: '95.01' },
    );
    expect(legs.map((leg) => [leg.kind, leg.amountOut, leg.minimumOut])).toEqual([
      ['swap', '96', '95.04'],
      ['bridge', '95.5', '95.01'],
    ]);
  });

  it('plans a same-chain swap as one leg that delivers exactly the quoted toAmount, at worst its minimum', () => {
    const legs = plan([{ kind: 'swap', chain: 'base', fromToken: 'USDC', toToken: 'ETH', provider: 'Aerodrome' }], {
      amountIn: '99.5',
      toAmount: '0.03109375',
      minimumToAmount: '0.0307828125',
    });
    expect(legs).toEqual([
      {
        kind: 'swap',
        provider: 'Aerodrome',
        fromChain: 'base',
        toChain: 'base',
        fromToken: 'USDC',
        toToken: 'ETH',
        amountIn: '99.5',
        amountOut: '0.03109375',
        minimumOut: '0.0307828125',
      },
    ]);
  });

  it('uses the quote figures for the last leg even when the USD prices would give something else', () => {
    const [leg] = plan([{ kind: 'swap', chain: 'base', fromToken: 'USDC', toToken: 'ETH', provider: 'Aerodrome' }], {
      amountIn: '99.5',
      toAmount: '0.031',
      minimumToAmount: '0.03',
      usdPrices: {},
    });
    expect(leg).toMatchObject({ amountOut: '0.031', minimumOut: '0.03' });
  });

  it('plans a cross-chain swap: source swap at the USD prices, a bridge carrying the amount as is, the destination swap at the quote', () => {
    expect(crossChainPlan()).toEqual([
      {
        kind: 'swap',
        provider: 'Aerodrome',
        fromChain: 'base',
        toChain: 'base',
        fromToken: 'USDC',
        toToken: 'ETH',
        amountIn: '993',
        amountOut: '0.3103125',
        minimumOut: '0.307209375',
      },
      {
        kind: 'bridge',
        provider: 'Across',
        fromChain: 'base',
        toChain: 'bsc',
        fromToken: 'ETH',
        toToken: 'ETH',
        amountIn: '0.3103125',
        amountOut: '0.3103125',
        minimumOut: '0.3103125',
      },
      {
        kind: 'swap',
        provider: 'PancakeSwap',
        fromChain: 'bsc',
        toChain: 'bsc',
        fromToken: 'ETH',
        toToken: 'BNB',
        amountIn: '0.3103125',
        amountOut: '1.527692307692307692',
        minimumOut: '1.512415384615384615',
      },
    ]);
  });

  it("cuts an intermediate amount and its minimum down to the output token's decimals (USDC has 6 on base)", () => {
    const legs = plan(
      [
        { kind: 'swap', chain: 'base', fromToken: 'ETH', toToken: 'USDC', provider: 'Aerodrome' },
        { kind: 'bridge', fromChain: 'base', toChain: 'bsc', token: 'USDC', provider: 'Stargate' },
        { kind: 'swap', chain: 'bsc', fromToken: 'USDC', toToken: 'BNB', provider: 'PancakeSwap' },
      ],
      { amountIn: '0.123456789', toAmount: '0.607787267692307692', minimumToAmount: '0.601709394' },
    );
    // 0.123456789 * 3200 = 395.0617248 -> 395.061724; * 0.99 = 391.11110676 -> 391.111106
    expect(legs[0]).toMatchObject({ amountIn: '0.123456789', amountOut: '395.061724', minimumOut: '391.111106' });
    expect(legs[1]).toMatchObject({ kind: 'bridge', amountIn: '395.061724', amountOut: '395.061724', minimumOut: '395.061724' });
    expect(legs[2]).toMatchObject({ amountIn: '395.061724', amountOut: '0.607787267692307692', minimumOut: '0.601709394' });
  });

  it('cuts a non-terminating conversion down to 18 decimals (USDC to BNB on bsc), never rounding up', () => {
    const [first] = plan(
      [
        { kind: 'swap', chain: 'bsc', fromToken: 'USDC', toToken: 'BNB', provider: 'PancakeSwap' },
        { kind: 'bridge', fromChain: 'bsc', toChain: 'base', token: 'BNB', provider: 'Stargate' },
      ],
      { amountIn: '100', toAmount: '0.15', minimumToAmount: '0.15', slippagePercent: '0.5' },
    );
    // 100 / 650 = 0.153846153846153846153...; * 0.995 = 0.153076923076923076...
    expect(first).toMatchObject({ amountOut: '0.153846153846153846', minimumOut: '0.153076923076923076' });
  });

  it('lets a bridge-only route deliver the quoted toAmount', () => {
    expect(
      plan([{ kind: 'bridge', fromChain: 'base', toChain: 'bsc', token: 'USDC', provider: 'Across' }], {
        amountIn: '99.2',
        toAmount: '99.2',
        minimumToAmount: '99.2',
        slippagePercent: '0.5',
        usdPrices: {},
      }),
    ).toEqual([
      {
        kind: 'bridge',
        provider: 'Across',
        fromChain: 'base',
        toChain: 'bsc',
        fromToken: 'USDC',
        toToken: 'USDC',
        amountIn: '99.2',
        amountOut: '99.2',
        minimumOut: '99.2',
      },
    ]);
  });

  it('throws when a price an intermediate swap needs is missing', () => {
    expect(() => plan(CROSS_CHAIN_LEG_SPECS, { amountIn: '993', toAmount: '1.5', minimumToAmount: '1.4', usdPrices: { USDC: '1', BNB: '650' } })).toThrow(
      'no USD price for ETH',
    );
  });

  it("refuses a route without legs as the request's fault (INVALID_REQUEST on quoteId), before the quote is used", () => {
    expect(() => plan([], { amountIn: '1', toAmount: '1', minimumToAmount: '1' })).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST', field: 'quoteId' }),
    );
  });
});

describe('scaleLeg', () => {
  const [sourceSwap, bridge, destinationSwap] = crossChainPlan() as [PlannedLeg, PlannedLeg, PlannedLeg];

  it('gives the planned figures back for the planned input', () => {
    expect(scaleLeg(sourceSwap, '993', false)).toEqual({ amountIn: '993', amountOut: '0.3103125', minimumOut: '0.307209375' });
  });

  it("scales an intermediate leg's output and minimum with the actual input", () => {
    expect(scaleLeg(sourceSwap, '496.5', false)).toEqual({ amountIn: '496.5', amountOut: '0.15515625', minimumOut: '0.1536046875' });
    expect(scaleLeg(bridge, '0.3', false)).toEqual({ amountIn: '0.3', amountOut: '0.3', minimumOut: '0.3' });
  });

  it("scales the last leg's output but never its minimum: that is what the customer was promised", () => {
    expect(scaleLeg(destinationSwap, '0.15515625', true)).toEqual({
      amountIn: '0.15515625',
      amountOut: '0.763846153846153846',
      minimumOut: '1.512415384615384615',
    });
    expect(scaleLeg(destinationSwap, '0.620625', true).minimumOut).toBe('1.512415384615384615');
  });

  it("cuts the scaled figures down to the output token's decimals", () => {
    const ethToUsdc: PlannedLeg = {
      kind: 'swap',
      provider: 'Aerodrome',
      fromChain: 'base',
      toChain: 'base',
      fromToken: 'ETH',
      toToken: 'USDC',
      amountIn: '0.123456789',
      amountOut: '395.061724',
      minimumOut: '391.111106',
    };
    expect(scaleLeg(ethToUsdc, '0.1', false)).toEqual({ amountIn: '0.1', amountOut: '319.999999', minimumOut: '316.799998' });
  });
});

describe('netOfFees and planOrder', () => {
  const order = crossChainOrder();

  it('sends the amount less every fee kept at the source into the first leg', () => {
    expect(netOfFees(order)).toBe('993');
    expect(netOfFees({ fromAmount: '100.1', fees: { ...order.fees, totalFee: '0.3' } })).toBe('99.8');
  });

  it("plans the order's legs from its net amount, toAmount, minimum and slippage", () => {
    expect(planOrder(order, CROSS_CHAIN_LEG_SPECS, USD_PRICES)).toEqual(crossChainPlan());
  });
});

describe('settleLegs, onchainProviders and venuesOf', () => {
  const venues: Venues = {
    dexes: new Map([
      ['base', 'Uniswap V2'],
      ['bsc', 'Uniswap V2'],
    ]),
    bridges: new Map([
      ['base', 'Ramp Intents'],
      ['bsc', 'Ramp Intents'],
      ['arbitrum', 'Ramp Intents'],
    ]),
  };
  const dexesOnly: Venues = { dexes: venues.dexes, bridges: new Map() };
  const sameChain = () =>
    plan([{ kind: 'swap', chain: 'base', fromToken: 'USDC', toToken: 'ETH', provider: 'Aerodrome' }], {
      amountIn: '99.5',
      toAmount: '0.031',
      minimumToAmount: '0.03',
    });

  it('runs a route of swaps on chains with pools on chain, each leg through their DEX, its amounts untouched', () => {
    const [leg] = settleLegs(sameChain(), venues);
    expect(leg).toEqual({ ...sameChain()[0], provider: 'Uniswap V2', settlement: 'onchain' });
  });

  /** base ETH -> USDC, USDC base -> bsc, bsc USDC -> BNB: the carried token a contract on both chains. */
  const usdcCarried = () =>
    plan(
      [
        { kind: 'swap', chain: 'base', fromToken: 'ETH', toToken: 'USDC', provider: 'Aerodrome' },
        { kind: 'bridge', fromChain: 'base', toChain: 'bsc', token: 'USDC', provider: 'Stargate' },
        { kind: 'swap', chain: 'bsc', fromToken: 'USDC', toToken: 'BNB', provider: 'PancakeSwap' },
      ],
      { amountIn: '0.3', toAmount: '1.5', minimumToAmount: '1.48' },
    );

  it('runs a route with a bridge on chain when both its chains have the intent bridge and every swap a DEX', () => {
    const legs = settleLegs(usdcCarried(), venues);
    expect(legs.map((leg) => [leg.kind, leg.provider, leg.settlement])).toEqual([
      ['swap', 'Uniswap V2', 'onchain'],
      ['bridge', 'Ramp Intents', 'onchain'],
      ['swap', 'Uniswap V2', 'onchain'],
    ]);
    expect(legs.map((leg) => [leg.amountIn, leg.amountOut, leg.minimumOut])).toEqual(usdcCarried().map((leg) => [leg.amountIn, leg.amountOut, leg.minimumOut]));
  });

  it('keeps a route that bridges a native coin (ETH from base) on the rails: the intent pools carry token contracts', () => {
    expect(settleLegs(crossChainPlan(), venues).map((leg) => leg.settlement)).toEqual(['simulated', 'simulated', 'simulated']);
    expect(onchainProviders([{ kind: 'bridge', fromChain: 'bsc', toChain: 'base', fromToken: 'ETH' }], venues)).toBeUndefined();
    expect(onchainProviders([{ kind: 'bridge', fromChain: 'bsc', toChain: 'base', fromToken: 'USDT' }], venues)).toEqual(['Ramp Intents']);
  });

  it('keeps a route with a bridge on the sandbox rails whole when a chain of it has no intent bridge, even its swaps on chains with pools', () => {
    for (const without of [
      dexesOnly,
      { ...venues, bridges: new Map([['base', 'Ramp Intents']]) },
      {
        ...venues,
        bridges: new Map([
          ['base', 'Ramp Intents'],
          ['bsc', 'Another'],
        ]),
      },
    ]) {
      expect(settleLegs(usdcCarried(), without).map((leg) => [leg.provider, leg.settlement])).toEqual([
        ['Aerodrome', 'simulated'],
        ['Stargate', 'simulated'],
        ['PancakeSwap', 'simulated'],
      ]);
    }
  });

  it('keeps a swap on a chain without pools (or with no venues known) on the rails', () => {
    expect(settleLegs(sameChain(), { dexes: new Map([['bsc', 'Uniswap V2']]), bridges: venues.bridges })[0]).toMatchObject({
      provider: 'Aerodrome',
      settlement: 'simulated',
    });
    expect(settleLegs(sameChain(), NO_VENUES)[0]).toMatchObject({ settlement: 'simulated' });
    expect(onchainProviders([], venues)).toBeUndefined();
    expect(
      onchainProviders(
        [
          { kind: 'swap', fromChain: 'base', toChain: 'base', fromToken: 'USDC' },
          { kind: 'bridge', fromChain: 'base', toChain: 'ethereum', fromToken: 'USDC' },
        ],
        venues,
      ),
    ).toBeUndefined();
    expect(onchainProviders([{ kind: 'bridge', fromChain: 'base', toChain: 'arbitrum', fromToken: 'USDC' }], venues)).toEqual(['Ramp Intents']);
    expect(
      onchainProviders(
        ['base', 'bsc'].map((chain) => placeOf({ kind: 'swap', chain, fromToken: 'USDC', toToken: 'ETH', provider: 'x' })),
        venues,
      ),
    ).toEqual(['Uniswap V2', 'Uniswap V2']);
  });

  it('finds the DEX and the intent bridge of each network that has them', () => {
    const network = (chain: string, dex?: string, bridge?: string) => ({
      chain,
      contracts: {
        tokens: {},
        wrappedNative: '0x',
        forwarderFactory: '0x',
        ...(dex && { dex: { name: dex, factory: '0x', router: '0x', hub: 'USDC', pairs: {} } }),
        ...(bridge && { bridge: { name: bridge, pool: '0x' } }),
      },
    });
    const found = venuesOf([
      network('base', 'Uniswap V2', 'Ramp Intents'),
      network('arbitrum', undefined, 'Ramp Intents'),
      network('bsc', 'Uniswap V2'),
      network('solana'),
    ]);
    expect([...found.dexes]).toEqual([
      ['base', 'Uniswap V2'],
      ['bsc', 'Uniswap V2'],
    ]);
    expect([...found.bridges]).toEqual([
      ['base', 'Ramp Intents'],
      ['arbitrum', 'Ramp Intents'],
    ]);
  });
});
