import { EVM_NATIVE_ADDRESS, findToken, isChainName, tokenDecimals } from '@ramp/chains';
import { invalidField, type ChainNetwork, type Settlement } from '@ramp/contracts';
import { dec, formatToken, ROUND_DOWN, type Decimal } from '@ramp/money';
import type { RouteStepView } from '@ramp/transactions';

/** One hop of a route as a router describes it: a swap on one chain, or a bridge between two. */
export type RouteLegSpec =
  | { kind: 'swap'; chain: string; fromToken: string; toToken: string; provider: string }
  | { kind: 'bridge'; fromChain: string; toChain: string; token: string; provider: string };

/** Every token a route passes through, once each: what its plan needs a price for. */
export function tokensOf(legs: readonly RouteLegSpec[]): string[] {
  return [...new Set(legs.flatMap((leg) => (leg.kind === 'swap' ? [leg.fromToken, leg.toToken] : [leg.token])))];
}

/**
 * A leg with the amounts the quote expects of it: `amountIn` goes in, `amountOut` should come out, and a swap leg
 * reverts if it would give less than `minimumOut` (the slippage tolerance). Amounts are decimal strings.
 */
export type PlannedLeg = Pick<RouteStepView, 'kind' | 'provider' | 'fromChain' | 'toChain' | 'fromToken' | 'toToken' | 'amountIn' | 'amountOut'> & {
  minimumOut: string;
  /** Where the leg runs: through a DEX on its chain (`onchain`), or on the sandbox's rails (absent: `simulated`). */
  settlement?: Settlement;
};

export interface RoutePlanInput {
  legs: readonly RouteLegSpec[];
  /** What enters the first leg: the quoted amount less the fees kept at the source. */
  amountIn: string;
  /** What the last leg delivers (the quote's toAmount) and the least it may deliver (after slippage). */
  toAmount: string;
  minimumToAmount: string;
  /** Slippage tolerance in percent, for the intermediate swaps. */
  slippagePercent: string;
  /** US dollars per token, for the intermediate amounts. */
  usdPrices: Readonly<Record<string, string>>;
}

/**
 * The legs with their expected amounts, pure: a swap converts at the USD prices (cut down to the destination token's
 * decimals) and may give `slippagePercent` less; a bridge carries the amount as is (its fee was taken at the source),
 * cut down to the token's decimals on the destination chain.
 * The last leg delivers exactly the quote's toAmount, and at worst its minimumToAmount.
 */
export function planRoute(input: RoutePlanInput): PlannedLeg[] {
  // Before the quote is used: a route with nothing to execute is refused as the request's fault, never a 500.
  if (input.legs.length === 0) throw invalidField('quoteId', 'the quote has no route to execute', 'NO_ROUTE');
  const price = (symbol: string): Decimal => {
    const value = input.usdPrices[symbol];
    if (value === undefined) throw new Error(`no USD price for ${symbol}`);
    return dec(value);
  };
  const keep = dec(1).sub(dec(input.slippagePercent).div(100));
  let amount = dec(input.amountIn);
  return input.legs.map((leg, index) => {
    const last = index === input.legs.length - 1;
    const amountIn = amount;
    let planned: PlannedLeg;
    if (leg.kind === 'swap') {
      const decimals = tokenDecimals(leg.toToken, leg.chain);
      const out = last ? dec(input.toAmount) : amountIn.mul(price(leg.fromToken)).div(price(leg.toToken)).toDecimalPlaces(decimals, ROUND_DOWN);
      const minimum = last ? dec(input.minimumToAmount) : out.mul(keep).toDecimalPlaces(decimals, ROUND_DOWN);
      planned = {
        kind: 'swap',
        provider: leg.provider,
        fromChain: leg.chain,
        toChain: leg.chain,
        fromToken: leg.fromToken,
        toToken: leg.toToken,
        amountIn: amountIn.toFixed(),
        amountOut: formatToken(out, decimals),
        minimumOut: formatToken(minimum, decimals),
      };
      amount = out;
    } else {
      // A bridge carries the amount as is, cut down to what the token's decimals hold on the destination chain. Its
      // minimum is what it carries, but for the last leg the quote's minimum: a swap before it may have given a little
      // less than planned, within the slippage tolerance.
      const out = last ? dec(input.toAmount) : amountIn.toDecimalPlaces(tokenDecimals(leg.token, leg.toChain, leg.fromChain), ROUND_DOWN);
      const minimum = last ? dec(input.minimumToAmount) : out;
      planned = {
        kind: 'bridge',
        provider: leg.provider,
        fromChain: leg.fromChain,
        toChain: leg.toChain,
        fromToken: leg.token,
        toToken: leg.token,
        amountIn: amountIn.toFixed(),
        amountOut: out.toFixed(),
        minimumOut: minimum.toFixed(),
      };
      amount = out;
    }
    return planned;
  });
}

/**
 * What a leg should give for `actualIn` when the plan expected `amountIn`: its expected output scaled, so that a leg
 * after one that gave a little more or less expects proportionally more or less. An intermediate leg's minimum scales
 * too; the last leg's never does: the quote's minimum is what the customer was promised. Cut down to the output
 * token's decimals.
 */
export function scaleLeg(leg: PlannedLeg, actualIn: string, isLast: boolean): { amountIn: string; amountOut: string; minimumOut: string } {
  const decimals = tokenDecimals(leg.toToken, leg.toChain, leg.fromChain);
  const ratio = dec(actualIn).div(leg.amountIn);
  return {
    amountIn: dec(actualIn).toFixed(),
    amountOut: formatToken(dec(leg.amountOut).mul(ratio), decimals),
    minimumOut: isLast ? leg.minimumOut : formatToken(dec(leg.minimumOut).mul(ratio), decimals),
  };
}

/** Where a route can run on chain for an environment (venuesOf): chain → its DEX's name, chain → its intent bridge's. */
export interface Venues {
  dexes: ReadonlyMap<string, string>;
  bridges: ReadonlyMap<string, string>;
}

/** No venue anywhere: every route on the sandbox's rails (live keys, or before the chain service answered). */
export const NO_VENUES: Venues = { dexes: new Map(), bridges: new Map() };

/** A leg as far as where it runs is concerned: a swap on one chain (fromChain = toChain), or a bridge of `fromToken` between two. */
export type LegPlace = Pick<PlannedLeg, 'kind' | 'fromChain' | 'toChain' | 'fromToken'>;

/** Where a router's leg runs: a swap's chain is both ends. */
export function placeOf(leg: RouteLegSpec): LegPlace {
  return leg.kind === 'swap'
    ? { kind: 'swap', fromChain: leg.chain, toChain: leg.chain, fromToken: leg.fromToken }
    : { kind: 'bridge', fromChain: leg.fromChain, toChain: leg.toChain, fromToken: leg.token };
}

/** Whether `symbol` is a token contract on `chain` (the intent pools carry tokens, not a chain's native coin). */
function isTokenContract(chain: string, symbol: string): boolean {
  const token = isChainName(chain) ? findToken(chain, symbol) : undefined;
  return token !== undefined && token.contractAddress !== EVM_NATIVE_ADDRESS;
}

/**
 * Which legs run on chain, given the venues the platform has (`venues`): a route whose every leg can (a swap on a chain
 * with a DEX of the platform, a bridge of a token contract between two chains with its intent bridge) runs there, each leg through that
 * venue (its provider renamed to it); any other route stays on the sandbox's rails whole, since a leg on chain cannot
 * follow or precede one that moved no real funds (a simulated bridge delivers nothing to swap).
 */
export function settleLegs(legs: readonly PlannedLeg[], venues: Venues): PlannedLeg[] {
  const providers = onchainProviders(legs, venues);
  return legs.map((leg, index) => (providers ? { ...leg, provider: providers[index]!, settlement: 'onchain' } : { ...leg, settlement: 'simulated' }));
}

/**
 * The providers of a route that runs on chain (settleLegs, and the quote's `route.providers`), each leg's venue, or
 * undefined for a route that stays on the rails: every leg must be a swap on a chain with a DEX of the platform, or a
 * bridge between two chains with the same intent bridge of the platform, of a token that is a contract on both (not a
 * native coin: ETH bridged from base stays on the rails).
 */
export function onchainProviders(legs: readonly LegPlace[], venues: Venues): string[] | undefined {
  if (legs.length === 0) return undefined;
  const providers = legs.map((leg) => {
    if (leg.kind === 'swap') return leg.fromChain === leg.toChain ? venues.dexes.get(leg.fromChain) : undefined;
    const bridge = venues.bridges.get(leg.fromChain);
    const carried = isTokenContract(leg.fromChain, leg.fromToken) && isTokenContract(leg.toChain, leg.fromToken);
    return bridge !== undefined && carried && leg.toChain !== leg.fromChain && venues.bridges.get(leg.toChain) === bridge ? bridge : undefined;
  });
  return providers.every((provider) => provider !== undefined) ? (providers as string[]) : undefined;
}

/** The venues of the platform on the chain service's networks: each chain's DEX, and each chain's intent bridge. */
export function venuesOf(networks: readonly Pick<ChainNetwork, 'chain' | 'contracts'>[]): Venues {
  return {
    dexes: new Map(networks.flatMap((network) => (network.contracts.dex ? [[network.chain, network.contracts.dex.name] as const] : []))),
    bridges: new Map(networks.flatMap((network) => (network.contracts.bridge ? [[network.chain, network.contracts.bridge.name] as const] : []))),
  };
}
