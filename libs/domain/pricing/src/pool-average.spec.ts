import { dec } from '@ramp/money';
import { averageBetween, cumulativeAt, Q112, type PairState, type PoolObservation } from './pool-average';

describe('pool averages - time-weighted prices from Uniswap V2 accumulators', () => {
  // 1 ETH (18 decimals) against 3,000 USDC (6 decimals): 3e-9 USDC base units per wei.
  const eth: PairState = { cumulativeLast: 0n, tokenReserve: 10n ** 18n, hubReserve: 3000n * 10n ** 6n, blockTimestampLast: 1_000 };
  const ethPrice = (3000n * 10n ** 6n * Q112) / 10n ** 18n;
  const reading = (timestamp: bigint, cumulative: bigint, blockNumber = timestamp): PoolObservation => ({ token: 'ETH', blockNumber, timestamp, cumulative });

  it("adds the price held since the pair's last update, times its seconds, as the pair itself would", () => {
    expect(cumulativeAt(eth, 1_010n)).toBe(ethPrice * 10n);
    expect(cumulativeAt({ ...eth, cumulativeLast: 7n }, 1_010n)).toBe(7n + ethPrice * 10n);
    // Read in the block that updated it: nothing more.
    expect(cumulativeAt({ ...eth, cumulativeLast: 7n }, 1_000n)).toBe(7n);
    // An empty pool adds nothing (the pair's _update skips it).
    expect(cumulativeAt({ ...eth, hubReserve: 0n, cumulativeLast: 7n }, 1_010n)).toBe(7n);
    expect(cumulativeAt({ ...eth, tokenReserve: 0n, cumulativeLast: 7n }, 1_010n)).toBe(7n);
  });

  it('wraps the seconds at 2^32 and the accumulator at 2^256, as the contract does', () => {
    const lastBefore = 2n ** 32n - 5n;
    expect(cumulativeAt({ ...eth, blockTimestampLast: Number(lastBefore) }, 2n ** 32n + 5n)).toBe(ethPrice * 10n);
    expect(cumulativeAt({ ...eth, cumulativeLast: 2n ** 256n - 1n }, 1_010n)).toBe(ethPrice * 10n - 1n);
  });

  it('averages a steady pool to its price, and two prices by the seconds each was held', () => {
    const start = cumulativeAt(eth, 1_100n);
    const steady = averageBetween(reading(1_100n, start), reading(1_700n, cumulativeAt(eth, 1_700n)))!;
    expect(steady.seconds).toBe(600);
    expect(steady.hubPerToken.sub(dec('3e-9')).abs().div('3e-9').lessThan('1e-25')).toBe(true);

    // A trade at 1,200 moves it to 3,300 USDC per ETH, held 300 s: the average is (3,000 x 100 + 3,300 x 300) / 400.
    const moved: PairState = { cumulativeLast: cumulativeAt(eth, 1_200n), tokenReserve: 10n ** 18n, hubReserve: 3300n * 10n ** 6n, blockTimestampLast: 1_200 };
    const average = averageBetween(reading(1_100n, start), reading(1_500n, cumulativeAt(moved, 1_500n)))!;
    expect(average.seconds).toBe(400);
    expect(average.hubPerToken.sub(dec('3.225e-9')).abs().div('3.225e-9').lessThan('1e-25')).toBe(true);
  });

  it('averages across an accumulator that overflowed between the readings', () => {
    const near = 2n ** 256n - ethPrice * 3n;
    const wrapped = cumulativeAt({ ...eth, cumulativeLast: near }, 1_010n);
    expect(wrapped).toBeLessThan(near);
    const average = averageBetween(reading(1_000n, near), reading(1_010n, wrapped))!;
    expect(average.hubPerToken.sub(dec('3e-9')).abs().div('3e-9').lessThan('1e-25')).toBe(true);
  });

  it('gives no average for readings not apart in time, and refuses readings of two pools', () => {
    expect(averageBetween(reading(1_000n, 5n), reading(1_000n, 9n))).toBeUndefined();
    expect(averageBetween(reading(1_010n, 5n), reading(1_000n, 9n))).toBeUndefined();
    expect(() => averageBetween(reading(1_000n, 5n), { ...reading(1_010n, 9n), token: 'cbBTC' })).toThrow('readings of two pools');
  });
});
