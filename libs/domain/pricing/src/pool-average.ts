import { dec, type Decimal } from '@ramp/money';

/**
 * A pool's time-weighted average price, from the price accumulators every Uniswap V2 pair keeps (`price0CumulativeLast`,
 * `price1CumulativeLast`): each block's first trade adds the price the pool held since the last one, times the seconds
 * it held it. Two readings some time apart give the average over that time, which a trader can move only by holding the
 * pool away from the market for all of it (and paying the arbitrageurs who bring it back meanwhile), not in one block.
 * Pure and exact: the accumulators' own fixed-point arithmetic, with their overflows.
 */

/** Uniswap V2's UQ112x112 prices: a price is `value / 2^112`. */
export const Q112 = 1n << 112n;
/** The accumulators are uint256 and meant to overflow: differences are taken modulo 2^256. */
const UINT256 = 1n << 256n;
/** `blockTimestampLast` is the block's timestamp modulo 2^32 (uint32), and so are the pair's elapsed seconds. */
const UINT32 = 1n << 32n;

/** A pair's state at one block, as `getReserves` and the hub-per-token accumulator read it there. */
export interface PairState {
  /** The accumulator of the hub's price in the token (`price0CumulativeLast` when the token is token0, else price1's). */
  cumulativeLast: bigint;
  tokenReserve: bigint;
  hubReserve: bigint;
  /** `getReserves`' third value: the timestamp (mod 2^32) of the block that last updated the pair. */
  blockTimestampLast: number;
}

/** One reading of a pool's accumulator: its value as of a block's timestamp. */
export interface PoolObservation {
  token: string;
  blockNumber: bigint;
  /** The block's timestamp, in Unix seconds. */
  timestamp: bigint;
  /** Σ (hub per token, UQ112x112, in base units) × seconds, modulo 2^256, up to `timestamp`. */
  cumulative: bigint;
}

/**
 * The accumulator as of `timestamp` (a block at or after the pair's last update): what the pair would have written had
 * it been updated in that block (UniswapV2OracleLibrary.currentCumulativePrices). An empty pool adds nothing, as the
 * pair's own update does not.
 */
export function cumulativeAt(state: PairState, timestamp: bigint): bigint {
  const elapsed = ((((timestamp % UINT32) - BigInt(state.blockTimestampLast)) % UINT32) + UINT32) % UINT32;
  if (elapsed === 0n || state.tokenReserve === 0n || state.hubReserve === 0n) return state.cumulativeLast;
  const price = (state.hubReserve * Q112) / state.tokenReserve;
  return (state.cumulativeLast + price * elapsed) % UINT256;
}

/** A pool's average price over a span: hub base units per token base unit, and how many seconds it covers. */
export interface PoolAverage {
  hubPerToken: Decimal;
  seconds: number;
}

/**
 * The time-weighted average hub-per-token price between two readings of one pool (UniswapV2OracleLibrary's
 * FixedPoint.uq112x112((cumulative1 - cumulative0) / elapsed)), undefined when they are not `older` before `newer`.
 */
export function averageBetween(older: PoolObservation, newer: PoolObservation): PoolAverage | undefined {
  if (older.token !== newer.token) throw new RangeError(`readings of two pools: ${older.token} and ${newer.token}`);
  const seconds = newer.timestamp - older.timestamp;
  if (seconds <= 0n) return undefined;
  const growth = (((newer.cumulative - older.cumulative) % UINT256) + UINT256) % UINT256;
  return { hubPerToken: dec(growth.toString()).div(seconds.toString()).div(Q112.toString()), seconds: Number(seconds) };
}
