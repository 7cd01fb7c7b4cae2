import { dec, fromBaseUnits, ROUND_DOWN, toBaseUnits, type Decimal } from '@ramp/money';
import type { PoolAverage } from './pool-average';

/**
 * Prices from constant-product pools (Uniswap V2), pure and exact: amounts are base units (bigint), as the pair
 * contracts compute them, so a quote read from reserves is what the router's `getAmountsOut` answers at that block.
 */

/** Uniswap V2 keeps 0.3% of what goes in for its liquidity providers: 997/1000 of it trades. */
const FEE_NUMERATOR = 997n;
const FEE_DENOMINATOR = 1000n;

/** UniswapV2Library.getAmountOut: what `amountIn` buys from a pool holding `reserveIn` and `reserveOut`. */
export function poolAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  if (amountIn <= 0n) throw new RangeError('amountIn must be positive');
  if (reserveIn <= 0n || reserveOut <= 0n) throw new RangeError('the pool has no liquidity');
  const withFee = amountIn * FEE_NUMERATOR;
  return (withFee * reserveOut) / (reserveIn * FEE_DENOMINATOR + withFee);
}

/** A pool of a token against the hub, by the registry's symbol of the token, with both reserves in base units. */
export interface HubPool {
  token: string;
  tokenReserve: bigint;
  hubReserve: bigint;
  /** On a live chain, the pool's time-weighted average price up to the same block, once it has one (PoolAverages). */
  average?: PoolAverage;
}

/** The pools of one chain at one block: every one pairs a token with `hub`. */
export interface HubPools {
  hub: string;
  blockNumber: bigint;
  /** On a live chain, the timestamp (Unix seconds) of `blockNumber`'s block: how old the read's prices are. */
  blockTimestamp?: number;
  pools: readonly HubPool[];
}

/** The tokens a swap passes through: straight when one end is the hub, through the hub otherwise. */
export function hubPath(from: string, to: string, hub: string): string[] {
  if (from === to) throw new RangeError(`a swap from ${from} to itself`);
  return from === hub || to === hub ? [from, to] : [from, hub, to];
}

/**
 * What `amountIn` of `from` buys of `to` through the hub pools, hop by hop (UniswapV2Library.getAmountsOut): every
 * amount of the path, the first being `amountIn`. Undefined when a pool of the path is missing or empty, or a hop
 * before the last gives nothing.
 */
export function hubAmountsOut(pools: HubPools, from: string, to: string, amountIn: bigint): { path: string[]; amounts: bigint[] } | undefined {
  const path = hubPath(from, to, pools.hub);
  const amounts = [amountIn];
  for (let hop = 0; hop + 1 < path.length; hop += 1) {
    const [tokenIn, tokenOut] = [path[hop]!, path[hop + 1]!];
    const pool = pools.pools.find((candidate) => candidate.token === (tokenIn === pools.hub ? tokenOut : tokenIn));
    if (!pool || pool.tokenReserve === 0n || pool.hubReserve === 0n) return undefined;
    const [reserveIn, reserveOut] = tokenIn === pools.hub ? [pool.hubReserve, pool.tokenReserve] : [pool.tokenReserve, pool.hubReserve];
    // A hop that gives nothing (a tiny amount into a skewed pool) leaves nothing for the next one to price.
    if (amounts[hop]! === 0n) return undefined;
    amounts.push(poolAmountOut(amounts[hop]!, reserveIn, reserveOut));
  }
  return { path, amounts };
}

/** A hop of a route, as far as its price goes: a swap on one chain's pools, or a bridge that carries the amount as is. */
export type MarketLeg =
  { kind: 'swap'; chain: string; fromToken: string; toToken: string } | { kind: 'bridge'; fromChain: string; toChain: string; token: string };

/**
 * What `amountIn` of the first leg's token becomes at the end of `legs`: each swap through its chain's hub pools (cut
 * down to the token's base units first), each bridge as is, cut down to the token's decimals on its destination.
 * Undefined when a swap's chain has no pools, or its pools cannot price it: the caller prices the route another way.
 */
export function amountThroughPools(
  amountIn: Decimal,
  legs: readonly MarketLeg[],
  pools: ReadonlyMap<string, HubPools>,
  decimalsOf: (symbol: string, chain: string) => number,
): Decimal | undefined {
  let amount = amountIn;
  for (const leg of legs) {
    if (leg.kind === 'bridge') {
      amount = amount.toDecimalPlaces(decimalsOf(leg.token, leg.toChain), ROUND_DOWN);
      continue;
    }
    const chainPools = pools.get(leg.chain);
    if (!chainPools) return undefined;
    const fromDecimals = decimalsOf(leg.fromToken, leg.chain);
    const units = toBaseUnits(amount.toDecimalPlaces(fromDecimals, ROUND_DOWN).toFixed(), fromDecimals);
    if (units === 0n) return undefined;
    const quoted = hubAmountsOut(chainPools, leg.fromToken, leg.toToken, units);
    if (!quoted) return undefined;
    amount = dec(fromBaseUnits(quoted.amounts[quoted.amounts.length - 1]!, decimalsOf(leg.toToken, leg.chain)));
  }
  return amount;
}

/** How far one pool's price is from the reference price (the price feed's), as a fraction: 0.05 is 5%. */
export interface PoolDeviation {
  chain: string;
  token: string;
  deviation: Decimal;
}

/**
 * How far each pool a route's swaps go through is priced from the reference: the pool's spot price of its token in the
 * hub (the reserves' ratio in whole units) against `referenceOf(token) / referenceOf(hub)` (US dollar prices), as
 * |spot / reference − 1|. A pool someone just moved far from the market shows here before a quote prices from it.
 */
export function poolDeviations(
  legs: readonly MarketLeg[],
  pools: ReadonlyMap<string, HubPools>,
  decimalsOf: (symbol: string, chain: string) => number,
  referenceOf: (symbol: string) => Decimal,
): PoolDeviation[] {
  return poolsOnPaths(legs, pools).map(({ chain, hub, pool }) => {
    const hubUnits = dec(fromBaseUnits(pool.hubReserve, decimalsOf(hub, chain)));
    const tokenUnits = dec(fromBaseUnits(pool.tokenReserve, decimalsOf(pool.token, chain)));
    const reference = referenceOf(pool.token).div(referenceOf(hub));
    return { chain, token: pool.token, deviation: hubUnits.div(tokenUnits).div(reference).sub(1).abs() };
  });
}

/**
 * Every pool with liquidity that a route's swaps go through (both ends of a path through the hub), with its chain and
 * hub, in the route's order: what a route is judged by. A chain without pools, and a pool missing or empty, are left
 * out (the route cannot be priced through them: amountThroughPools says so).
 */
function poolsOnPaths(legs: readonly MarketLeg[], pools: ReadonlyMap<string, HubPools>): { chain: string; hub: string; pool: HubPool }[] {
  return legs.flatMap((leg) => {
    const chainPools = leg.kind === 'swap' ? pools.get(leg.chain) : undefined;
    if (leg.kind !== 'swap' || !chainPools) return [];
    return hubPath(leg.fromToken, leg.toToken, chainPools.hub)
      .filter((symbol) => symbol !== chainPools.hub)
      .flatMap((token) => {
        const pool = chainPools.pools.find((candidate) => candidate.token === token);
        return pool && pool.tokenReserve > 0n && pool.hubReserve > 0n ? [{ chain: leg.chain, hub: chainPools.hub, pool }] : [];
      });
  });
}

/**
 * How far each pool a route's swaps go through is priced from its own time-weighted average (a live chain's pools,
 * which have no price feed of the platform's to be checked against): the spot price of its token in the hub (the
 * reserves' ratio) against the pool's average up to the same block, as |spot / average − 1|. A pool without an average
 * (or with an empty one) has no `deviation`: it cannot be judged. A pool missing or empty is left out: the route
 * cannot be priced through it at all (amountThroughPools says so).
 */
export interface AverageDeviation {
  chain: string;
  token: string;
  average?: PoolAverage;
  deviation?: Decimal;
}

export function averageDeviations(legs: readonly MarketLeg[], pools: ReadonlyMap<string, HubPools>): AverageDeviation[] {
  return poolsOnPaths(legs, pools).map(({ chain, pool }): AverageDeviation => {
    const { average } = pool;
    if (!average || average.hubPerToken.isZero()) return { chain, token: pool.token };
    const spot = dec(pool.hubReserve.toString()).div(pool.tokenReserve.toString());
    return { chain, token: pool.token, average, deviation: spot.div(average.hubPerToken).sub(1).abs() };
  });
}

/**
 * What a live quote keeps of the spot price's answer so that each hop of a route's swaps is priced at the worse, for
 * the platform, of the pool's spot price and its own time-weighted average: a pool moved (within the tolerance) toward
 * the customer is priced as its average, one moved the other way as its spot. Per hop, selling a token for the hub
 * keeps min(1, average / spot) of what the spot gives, buying a token with the hub min(1, spot / average); the factor is
 * their product (1 when no pool is moved toward the customer). A pool without an average counts 1: livePoolsRefusal
 * refuses it first. Multiplied into amountThroughPools' answer, the fee and the trade's impact stay the spot's.
 */
export function worseOfAverageFactor(legs: readonly MarketLeg[], pools: ReadonlyMap<string, HubPools>): Decimal {
  let factor = dec(1);
  for (const leg of legs) {
    const chainPools = leg.kind === 'swap' ? pools.get(leg.chain) : undefined;
    if (leg.kind !== 'swap' || !chainPools) continue;
    const path = hubPath(leg.fromToken, leg.toToken, chainPools.hub);
    for (let hop = 0; hop + 1 < path.length; hop += 1) {
      const [tokenIn, tokenOut] = [path[hop]!, path[hop + 1]!];
      const selling = tokenOut === chainPools.hub;
      const pool = chainPools.pools.find((candidate) => candidate.token === (selling ? tokenIn : tokenOut));
      if (!pool || pool.tokenReserve === 0n || pool.hubReserve === 0n || !pool.average || pool.average.hubPerToken.lte(0)) continue;
      const spot = dec(pool.hubReserve.toString()).div(pool.tokenReserve.toString());
      const kept = selling ? pool.average.hubPerToken.div(spot) : spot.div(pool.average.hubPerToken);
      if (kept.lt(1)) factor = factor.mul(kept);
    }
  }
  return factor;
}

/** What a live quote asks of the pools it would price from (LIVE_POOL_* settings), and the clock. */
export interface LivePoolRules {
  /** The furthest a pool's spot price may be from its own average, as a fraction (0.02 is 2%). */
  tolerance: Decimal;
  /** The shortest span of an average that is believed. */
  minAverageSeconds: number;
  /** The oldest a read's block may be. */
  maxLagSeconds: number;
  /** Now, in Unix seconds. */
  now: number;
}

/**
 * Why a route's live pools cannot be priced from now (undefined: they can): a read at a block older than the rules
 * allow (a node that lags shows a spot price and an average that agree while both are stale), a pool without an
 * average over the least span (not watched that long), or one further from that average than the tolerance (someone
 * is moving it). The first reason found, in that order, as a sentence for the integrator.
 */
export function livePoolsRefusal(legs: readonly MarketLeg[], pools: ReadonlyMap<string, HubPools>, rules: LivePoolRules): string | undefined {
  for (const [chain, chainPools] of pools) {
    const lag = chainPools.blockTimestamp === undefined ? undefined : rules.now - chainPools.blockTimestamp;
    if (lag === undefined || lag > rules.maxLagSeconds) {
      const age = lag === undefined ? 'of unknown age' : `${lag} seconds old`;
      return `${chain}'s pools were read at a block ${age} (more than ${rules.maxLagSeconds}): no quote is priced from a node that lags; ask again in a moment`;
    }
  }
  const judged = averageDeviations(legs, pools);
  const unjudged = judged.find((entry) => !entry.deviation || entry.average!.seconds < rules.minAverageSeconds);
  if (unjudged) {
    return `The ${unjudged.token} pool on ${unjudged.chain} has no time-weighted average over ${spanOf(rules.minAverageSeconds)} yet to judge its price by: no quote is given from it; ask again later`;
  }
  const worst = [...judged].sort((a, b) => b.deviation!.comparedTo(a.deviation!))[0];
  if (worst && worst.deviation!.gt(rules.tolerance)) {
    const percent = worst.deviation!.mul(100).toDecimalPlaces(1).toFixed();
    return `The ${worst.token} pool on ${worst.chain} is priced ${percent}% away from its own average over the last ${spanOf(worst.average!.seconds)} (more than ${rules.tolerance.mul(100).toFixed()}%): no quote is given from it; ask again in a moment`;
  }
  return undefined;
}

/** A span of seconds in words: `45 seconds`, `30 minutes`. */
function spanOf(seconds: number): string {
  return seconds < 120 ? `${seconds} seconds` : `${Math.round(seconds / 60)} minutes`;
}
