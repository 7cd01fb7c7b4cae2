import { dec, formatRate, fromBaseUnits, type Decimal } from '@ramp/money';
import {
  amountThroughPools,
  averageDeviations,
  hubAmountsOut,
  livePoolsRefusal,
  hubPath,
  poolAmountOut,
  poolDeviations,
  worseOfAverageFactor,
  type HubPools,
  type MarketLeg,
} from './pools';
import { DEFAULT_SWAP_FEES, priceSwap } from './swap-quotes';

const USDC = 10n ** 6n;
const WEI = 10n ** 18n;

// Two million dollars a side: 625 ETH against 2,000,000 USDC (3,200 USD), 3,000,000,000 CNGN against 2,000,000 USDC.
const pools: HubPools = {
  hub: 'USDC',
  blockNumber: 7n,
  pools: [
    { token: 'ETH', tokenReserve: 625n * WEI, hubReserve: 2_000_000n * USDC },
    { token: 'CNGN', tokenReserve: 3_000_000_000n * USDC, hubReserve: 2_000_000n * USDC },
    { token: 'USDT', tokenReserve: 0n, hubReserve: 0n },
  ],
};

describe('poolAmountOut - Uniswap V2 getAmountOut', () => {
  it('given a small trade, then the pool price less the 0.3% fee, rounded down', () => {
    // 100 USDC into 2,000,000 USDC / 625 ETH: 100 * 0.997 * 625 / (2,000,000 + 99.7) ETH.
    const out = poolAmountOut(100n * USDC, 2_000_000n * USDC, 625n * WEI);
    expect(out).toBe((99_700_000n * 625n * WEI) / (2_000_000n * USDC + 99_700_000n));
    expect(Number(out) / 1e18).toBeCloseTo((100 * 0.997) / 3200, 5);
  });

  it('given a trade of a tenth of the pool, then the price impact takes about a tenth more than the fee', () => {
    const out = poolAmountOut(200_000n * USDC, 2_000_000n * USDC, 625n * WEI);
    const atSpot = (200_000n * WEI) / 3200n;
    // x*y=k: 625 - 625 * 2,000,000 / 2,199,400 = 56.65 ETH, against 62.5 at the spot price.
    expect(out).toBeLessThan((atSpot * 92n) / 100n);
    expect(out).toBeGreaterThan((atSpot * 90n) / 100n);
  });

  it('given an empty pool or nothing in, then a RangeError', () => {
    expect(() => poolAmountOut(1n, 0n, 1n)).toThrow(RangeError);
    expect(() => poolAmountOut(0n, 1n, 1n)).toThrow(RangeError);
  });
});

describe('hubAmountsOut - a swap through the hub pools', () => {
  it('given one end the hub, then one hop', () => {
    expect(hubPath('USDC', 'ETH', 'USDC')).toEqual(['USDC', 'ETH']);
    const quoted = hubAmountsOut(pools, 'ETH', 'USDC', WEI)!;
    expect(quoted.path).toEqual(['ETH', 'USDC']);
    expect(quoted.amounts).toEqual([WEI, poolAmountOut(WEI, 625n * WEI, 2_000_000n * USDC)]);
  });

  it('given neither end the hub, then two hops, the second taking what the first gave', () => {
    const quoted = hubAmountsOut(pools, 'CNGN', 'ETH', 1_500_000n * USDC)!;
    expect(quoted.path).toEqual(['CNGN', 'USDC', 'ETH']);
    const usdc = poolAmountOut(1_500_000n * USDC, 3_000_000_000n * USDC, 2_000_000n * USDC);
    expect(quoted.amounts).toEqual([1_500_000n * USDC, usdc, poolAmountOut(usdc, 2_000_000n * USDC, 625n * WEI)]);
    // 1,500,000 NGN is 1,000 USD: about 0.3125 ETH less two pool fees.
    expect(Number(quoted.amounts[2]) / 1e18).toBeCloseTo(0.3125 * 0.997 * 0.997, 3);
  });

  it('given a pool missing or empty on the path, then undefined (the quote falls back, never divides by zero)', () => {
    expect(hubAmountsOut(pools, 'USDT', 'USDC', USDC)).toBeUndefined();
    expect(hubAmountsOut(pools, 'cbBTC', 'ETH', 1n)).toBeUndefined();
  });

  it('given a first hop that gives nothing, then undefined, never a RangeError from the second', () => {
    const skewed: HubPools = { ...pools, pools: [{ token: 'cbBTC', tokenReserve: 10n ** 12n, hubReserve: 1n }, ...pools.pools] };
    expect(hubAmountsOut(skewed, 'cbBTC', 'ETH', 1000n)).toBeUndefined();
  });

  it('given the same token at both ends, then a RangeError', () => {
    expect(() => hubPath('USDC', 'USDC', 'USDC')).toThrow(RangeError);
  });
});

describe('amountThroughPools - a route priced on the pools it runs on', () => {
  const decimals = (symbol: string, chain: string) => ({ USDC: chain === 'bsc' ? 18 : 6, CNGN: 6, ETH: 18 })[symbol as 'USDC']!;
  const onBase = new Map([['base', pools]]);

  it("given a swap on a chain with pools, then what the pools give, in the token's decimals", () => {
    const out = amountThroughPools(dec('999'), [{ kind: 'swap', chain: 'base', fromToken: 'USDC', toToken: 'ETH' }], onBase, decimals)!;
    expect(out.toFixed()).toBe(fromBaseUnits(poolAmountOut(999n * USDC, 2_000_000n * USDC, 625n * WEI), 18));
  });

  it('given a bridge then a swap, then the bridge carries the amount cut to the destination decimals and the swap prices it', () => {
    const legs = [
      { kind: 'bridge' as const, fromChain: 'bsc', toChain: 'base', token: 'USDC' },
      { kind: 'swap' as const, chain: 'base', fromToken: 'USDC', toToken: 'CNGN' },
    ];
    const out = amountThroughPools(dec('10.123456789'), legs, onBase, decimals)!;
    expect(out.toFixed()).toBe(fromBaseUnits(poolAmountOut(10_123_456n, 2_000_000n * USDC, 3_000_000_000n * USDC), 6));
  });

  it('given a swap on a chain without pools, or an amount below one base unit, then undefined', () => {
    expect(amountThroughPools(dec('1'), [{ kind: 'swap', chain: 'solana', fromToken: 'USDC', toToken: 'ETH' }], onBase, decimals)).toBeUndefined();
    expect(amountThroughPools(dec('0.0000001'), [{ kind: 'swap', chain: 'base', fromToken: 'USDC', toToken: 'ETH' }], onBase, decimals)).toBeUndefined();
  });
});

describe('priceSwap on the pools - price impact in toAmount and rate', () => {
  const swap = (amount: string) =>
    priceSwap({
      fromAmount: dec(amount),
      fromDecimals: 6,
      toDecimals: 18,
      fromUsd: dec('1'),
      toUsd: dec('3200'),
      ngnPerUsd: dec('1500'),
      crossChain: false,
      slippagePercent: dec('0.5'),
      schedule: DEFAULT_SWAP_FEES,
      market: (net) =>
        amountThroughPools(net, [{ kind: 'swap', chain: 'base', fromToken: 'USDC', toToken: 'ETH' }], new Map([['base', pools]]), (symbol) =>
          symbol === 'ETH' ? 18 : 6,
        ),
    });

  it('given a small swap, then the sandbox price within the pool fee, and the rate is what it got', () => {
    const quote = swap('100');
    // 99.7 USDC after the platform's 0.3%, then the pool's 0.3%: about 99.7 * 0.997 / 3200 ETH.
    expect(Number(quote.toAmount)).toBeCloseTo((99.7 * 0.997) / 3200, 5);
    expect(quote.rate).toBe(formatRate(dec(quote.toAmount).div('99.7'), 12));
  });

  it('given a swap of a tenth of the pool, then toAmount and rate show the price impact', () => {
    const small = swap('100');
    const large = swap('200000');
    expect(dec(large.rate).lessThan(dec(small.rate).mul('0.92'))).toBe(true);
    expect(dec(large.minimumToAmount).lessThan(large.toAmount)).toBe(true);
  });

  it('given a market that cannot price it, then the USD prices', () => {
    const quote = priceSwap({
      fromAmount: dec('250'),
      fromDecimals: 6,
      toDecimals: 18,
      fromUsd: dec('1'),
      toUsd: dec('3200'),
      ngnPerUsd: dec('1500'),
      crossChain: false,
      slippagePercent: dec('0.5'),
      schedule: DEFAULT_SWAP_FEES,
      market: () => undefined,
    });
    expect(quote.toAmount).toBe('0.077890625');
  });
});

describe('pool deviations - how far the pools a route swaps through are from the market', () => {
  const decimals = (symbol: string) => ({ USDC: 6, ETH: 18, CNGN: 6 })[symbol] ?? 18;
  const usd = (symbol: string) => dec({ USDC: '1', ETH: '3200', CNGN: '0.000667' }[symbol] ?? '1');
  // 2,000,000 USD a side: 625 ETH against 2,000,000 USDC (3,200 a coin), 2,998,500,750 CNGN against 2,000,000 USDC.
  const seeded = (ethReserve: bigint): ReadonlyMap<string, HubPools> =>
    new Map([
      [
        'base',
        {
          hub: 'USDC',
          blockNumber: 1n,
          pools: [
            { token: 'ETH', tokenReserve: ethReserve, hubReserve: 2_000_000n * 10n ** 6n },
            { token: 'CNGN', tokenReserve: 2_998_500_750n * 10n ** 6n, hubReserve: 2_000_000n * 10n ** 6n },
          ],
        },
      ],
    ]);
  const swap = (fromToken: string, toToken: string): MarketLeg => ({ kind: 'swap', chain: 'base', fromToken, toToken });

  it('is nothing for a pool at the market, and the relative gap for one someone moved', () => {
    const [atMarket] = poolDeviations([swap('USDC', 'ETH')], seeded(625n * 10n ** 18n), decimals, usd);
    expect(atMarket).toMatchObject({ chain: 'base', token: 'ETH' });
    expect(atMarket!.deviation.toNumber()).toBeCloseTo(0, 9);
    // 500 ETH left for the same USDC: 4,000 a coin, 25% above the market's 3,200.
    const [moved] = poolDeviations([swap('USDC', 'ETH')], seeded(500n * 10n ** 18n), decimals, usd);
    expect(moved!.deviation.toFixed(6)).toBe('0.250000');
  });

  it('looks at every pool of the path (both ends through the hub), and at no pool a route does not use', () => {
    const deviations = poolDeviations([swap('CNGN', 'ETH')], seeded(500n * 10n ** 18n), decimals, usd);
    expect(deviations.map((entry) => entry.token)).toEqual(['CNGN', 'ETH']);
    expect(poolDeviations([swap('USDC', 'CNGN')], seeded(500n * 10n ** 18n), decimals, usd).map((entry) => entry.token)).toEqual(['CNGN']);
    expect(poolDeviations([{ kind: 'bridge', fromChain: 'base', toChain: 'bsc', token: 'USDC' }], seeded(1n), decimals, usd)).toEqual([]);
  });
});

describe("average deviations - how far a live chain's pools are from their own averages", () => {
  const swap = (fromToken: string, toToken: string): MarketLeg => ({ kind: 'swap', chain: 'base', fromToken, toToken });
  // 3,000,000,000 CNGN (6 decimals) against 2,000,000 USDC: 0.000666... USDC base units per CNGN base unit.
  const cngn = { token: 'CNGN', tokenReserve: 3_000_000_000n * USDC, hubReserve: 2_000_000n * USDC };
  const withAverage = (hubPerToken: string | undefined, extra: Partial<HubPools> = {}) =>
    new Map([
      [
        'base',
        {
          ...pools,
          ...extra,
          pools: [
            { ...cngn, ...(hubPerToken !== undefined && { average: { hubPerToken: dec(hubPerToken), seconds: 1800 } }) },
            { token: 'ETH', tokenReserve: 625n * WEI, hubReserve: 2_000_000n * USDC },
            { token: 'USDT', tokenReserve: 0n, hubReserve: 0n },
          ],
        },
      ],
    ]);

  it('given a pool at its average, then no deviation; given one 5% above it, then 0.05, whichever way the route goes', () => {
    const spot = dec(2_000_000).div(3_000_000_000);
    expect(averageDeviations([swap('CNGN', 'USDC')], withAverage(spot.toFixed()))).toEqual([
      { chain: 'base', token: 'CNGN', average: { hubPerToken: spot, seconds: 1800 }, deviation: dec(0) },
    ]);
    const [moved] = averageDeviations([swap('USDC', 'CNGN')], withAverage(spot.div(1.05).toFixed()));
    expect(moved!.deviation!.toDecimalPlaces(10).toFixed()).toBe('0.05');
  });

  it('given a pool with no average yet (or a zero one), then it is named without a deviation: it cannot be judged', () => {
    expect(averageDeviations([swap('CNGN', 'USDC')], withAverage(undefined))).toEqual([{ chain: 'base', token: 'CNGN' }]);
    expect(averageDeviations([swap('CNGN', 'USDC')], withAverage('0'))).toEqual([{ chain: 'base', token: 'CNGN' }]);
  });

  it('judges every pool of a route through the hub, and leaves out empty and missing pools and other chains', () => {
    const judged = averageDeviations([swap('ETH', 'CNGN')], withAverage('0.0006'));
    expect(judged.map((entry) => [entry.token, entry.deviation !== undefined])).toEqual([
      ['ETH', false],
      ['CNGN', true],
    ]);
    expect(averageDeviations([swap('USDT', 'USDC')], withAverage('0.0006'))).toEqual([]);
    expect(averageDeviations([{ kind: 'swap', chain: 'bsc', fromToken: 'CNGN', toToken: 'USDC' }], withAverage('0.0006'))).toEqual([]);
  });
});

describe("worse of average - a live quote priced at the worse, for the platform, of each pool's spot and average", () => {
  const swap = (fromToken: string, toToken: string): MarketLeg => ({ kind: 'swap', chain: 'base', fromToken, toToken });
  // USDC base units per CNGN base unit at the reserves: 2,000,000 / 3,000,000,000.
  const spot = dec(2_000_000).div(3_000_000_000);
  const averaged = (cngnAverage: Decimal | undefined, ethAverage?: Decimal) =>
    new Map([
      [
        'base',
        {
          ...pools,
          pools: pools.pools.map((pool) => {
            const average = pool.token === 'CNGN' ? cngnAverage : pool.token === 'ETH' ? ethAverage : undefined;
            return average ? { ...pool, average: { hubPerToken: average, seconds: 1800 } } : pool;
          }),
        },
      ],
    ]);

  it('given pools at their averages, then all of the spot price is kept', () => {
    expect(worseOfAverageFactor([swap('USDC', 'CNGN')], averaged(spot)).toFixed()).toBe('1');
    expect(worseOfAverageFactor([swap('CNGN', 'USDC')], averaged(spot)).toFixed()).toBe('1');
  });

  it('given CNGN 2% cheaper at spot than its average, then buying CNGN keeps 1/1.02 of the spot, selling CNGN keeps it all', () => {
    // Cheap CNGN: a USDC buys more of it now than on average (good for the seller of USDC, the off-ramp's customer).
    const cheap = averaged(spot.mul('1.02'));
    expect(
      worseOfAverageFactor([swap('USDC', 'CNGN')], cheap)
        .toDecimalPlaces(12)
        .toFixed(),
    ).toBe(dec(1).div('1.02').toDecimalPlaces(12).toFixed());
    expect(worseOfAverageFactor([swap('CNGN', 'USDC')], cheap).toFixed()).toBe('1');
  });

  it('given CNGN 2% dearer at spot than its average, then selling CNGN keeps 1/1.02 of the spot, buying it keeps it all', () => {
    const dear = averaged(spot.div('1.02'));
    expect(
      worseOfAverageFactor([swap('CNGN', 'USDC')], dear)
        .toDecimalPlaces(12)
        .toFixed(),
    ).toBe(dec(1).div('1.02').toDecimalPlaces(12).toFixed());
    expect(worseOfAverageFactor([swap('USDC', 'CNGN')], dear).toFixed()).toBe('1');
  });

  it('given a route through the hub, then each hop judged on its own pool, the factors multiplied', () => {
    // ETH → USDC sells ETH (dear at spot by 1%: kept 1/1.01), USDC → CNGN buys CNGN (cheap at spot by 2%: kept 1/1.02).
    const ethSpot = dec((2_000_000n * USDC).toString()).div((625n * WEI).toString());
    const factor = worseOfAverageFactor([swap('ETH', 'CNGN')], averaged(spot.mul('1.02'), ethSpot.div('1.01')));
    expect(factor.toDecimalPlaces(12).toFixed()).toBe(dec(1).div('1.01').div('1.02').toDecimalPlaces(12).toFixed());
    // The same pools the other way round: CNGN sold at its cheap spot, ETH bought at its dear spot: nothing taken.
    expect(worseOfAverageFactor([swap('CNGN', 'ETH')], averaged(spot.mul('1.02'), ethSpot.div('1.01'))).toFixed()).toBe('1');
  });

  it('given a pool without an average, a bridge, or a chain without pools, then they count for nothing', () => {
    expect(worseOfAverageFactor([swap('USDC', 'CNGN')], averaged(undefined)).toFixed()).toBe('1');
    expect(worseOfAverageFactor([{ kind: 'bridge', fromChain: 'base', toChain: 'bsc', token: 'USDC' }], averaged(spot.mul(2))).toFixed()).toBe('1');
    expect(worseOfAverageFactor([{ kind: 'swap', chain: 'bsc', fromToken: 'USDC', toToken: 'CNGN' }], averaged(spot.mul(2))).toFixed()).toBe('1');
  });
});

describe('live pools refusal - whether a live quote may be priced from the pools now', () => {
  const NOW = 1_800_000_000;
  const rules = { tolerance: dec('0.02'), minAverageSeconds: 900, maxLagSeconds: 120, now: NOW };
  const legs: MarketLeg[] = [{ kind: 'swap', chain: 'base', fromToken: 'USDC', toToken: 'CNGN' }];
  const spot = dec(2_000_000).div(3_000_000_000);
  const read = (average: { hubPerToken: string; seconds: number } | undefined, blockTimestamp: number | undefined = NOW - 2) =>
    new Map([
      [
        'base',
        {
          hub: 'USDC',
          blockNumber: 7n,
          ...(blockTimestamp !== undefined && { blockTimestamp }),
          pools: [
            {
              token: 'CNGN',
              tokenReserve: 3_000_000_000n * USDC,
              hubReserve: 2_000_000n * USDC,
              ...(average && { average: { hubPerToken: dec(average.hubPerToken), seconds: average.seconds } }),
            },
          ],
        },
      ],
    ]);

  it('given a recent read of a pool near its average over the least span, then nothing', () => {
    expect(livePoolsRefusal(legs, read({ hubPerToken: spot.toFixed(), seconds: 900 }), rules)).toBeUndefined();
    expect(livePoolsRefusal(legs, read({ hubPerToken: spot.div('1.019').toFixed(), seconds: 1800 }, NOW - 120), rules)).toBeUndefined();
  });

  it('given a read at an old block, or of unknown age, then refused: a node that lags', () => {
    expect(livePoolsRefusal(legs, read({ hubPerToken: spot.toFixed(), seconds: 1800 }, NOW - 121), rules)).toBe(
      "base's pools were read at a block 121 seconds old (more than 120): no quote is priced from a node that lags; ask again in a moment",
    );
    const unknownAge = new Map([['base', { hub: 'USDC', blockNumber: 7n, pools: [] }]]);
    expect(livePoolsRefusal(legs, unknownAge, rules)).toMatch(/block of unknown age/);
  });

  it('given a pool without an average, or with one over less than the least span, then refused until it has one', () => {
    const refusal = 'The CNGN pool on base has no time-weighted average over 15 minutes yet to judge its price by: no quote is given from it; ask again later';
    expect(livePoolsRefusal(legs, read(undefined), rules)).toBe(refusal);
    expect(livePoolsRefusal(legs, read({ hubPerToken: spot.toFixed(), seconds: 899 }), rules)).toBe(refusal);
    expect(livePoolsRefusal(legs, read(undefined), { ...rules, minAverageSeconds: 10 })).toMatch(/over 10 seconds yet/);
  });

  it('given a pool moved further from its average than the tolerance, either way, then refused, saying how far', () => {
    expect(livePoolsRefusal(legs, read({ hubPerToken: spot.div('1.03').toFixed(), seconds: 1800 }), rules)).toBe(
      'The CNGN pool on base is priced 3% away from its own average over the last 30 minutes (more than 2%): no quote is given from it; ask again in a moment',
    );
    expect(livePoolsRefusal(legs, read({ hubPerToken: spot.mul('1.025').toFixed(), seconds: 1800 }), rules)).toMatch(/priced 2.4% away/);
  });
});
