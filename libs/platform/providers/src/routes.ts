import { ByEnvironment } from './by-environment';
import type { RouteLegSpec } from '@ramp/routing';

export interface SwapRouteInput {
  fromChain: string;
  toChain: string;
  fromToken: string;
  toToken: string;
}

export interface SwapRoute {
  steps: number;
  estimatedSeconds: number;
  /** Every DEX and bridge the swap goes through, in order. */
  providers: string[];
  /** The hops to execute, in order. */
  legs: RouteLegSpec[];
}

export interface BridgeRouteInput {
  fromChain: string;
  toChain: string;
  token: string;
  toToken: string;
}

export interface BridgeRoute {
  steps: number;
  estimatedSeconds: number;
  /** The bridge that carries the funds, or `direct` when both ends are on one chain. */
  bridge: string;
  /** The hops to execute, in order. */
  legs: RouteLegSpec[];
}

/** Routing across exchanges and bridges. A live adapter asks an aggregator; the sandbox answers deterministically. */
export interface RouteProvider {
  swapRoute(input: SwapRouteInput): Promise<SwapRoute>;
  bridgeRoute(input: BridgeRouteInput): Promise<BridgeRoute>;
}

/** The DEX that fills swaps on each chain in the sandbox: the deepest venue there. */
const DEX_BY_CHAIN: ReadonlyMap<string, string> = new Map([
  ['base', 'Aerodrome'],
  ['bsc', 'PancakeSwap'],
  ['ethereum', 'Uniswap V3'],
  ['polygon', 'QuickSwap'],
  ['arbitrum', 'Uniswap V3'],
  ['avalanche', 'Trader Joe'],
  ['solana', 'Jupiter'],
]);

/** What bridges move without a swap: canonical stablecoins and ETH. */
const BRIDGED_TOKENS: ReadonlySet<string> = new Set(['USDC', 'USDT', 'ETH']);
/** The token a swap passes through when neither end can be bridged. */
const BRIDGE_CARRIER = 'USDC';

const SWAP_SECONDS = 15;
const DIRECT_TRANSFER_SECONDS = 15;

interface Bridge {
  name: string;
  seconds: number;
}

const ACROSS: Bridge = { name: 'Across', seconds: 120 };
const STARGATE: Bridge = { name: 'Stargate', seconds: 180 };
const MAYAN: Bridge = { name: 'Mayan', seconds: 240 };
/** Across's fast fills cover Ethereum and its rollups; BNB Smart Chain and Avalanche go through Stargate. */
const STARGATE_CHAINS: ReadonlySet<string> = new Set(['bsc', 'avalanche']);

function dexOf(chain: string): string {
  const dex = DEX_BY_CHAIN.get(chain);
  if (dex === undefined) throw new Error(`no sandbox DEX on chain "${chain}"`);
  return dex;
}

function bridgeBetween(fromChain: string, toChain: string): Bridge {
  if (fromChain === 'solana' || toChain === 'solana') return MAYAN;
  if (STARGATE_CHAINS.has(fromChain) || STARGATE_CHAINS.has(toChain)) return STARGATE;
  return ACROSS;
}

/**
 * Deterministic, plausible routes for test keys. A same-chain swap is one DEX hop of about 15 seconds. A cross-chain
 * swap is a source swap, a bridge and a destination swap, each only when needed, in two to five minutes: a
 * bridgeable token is carried as is, otherwise the source swap goes straight to the wanted token when that is
 * bridgeable, and through USDC when neither is. Solana is reached through Mayan.
 */
export class SandboxRouteProvider implements RouteProvider {
  async swapRoute(input: SwapRouteInput): Promise<SwapRoute> {
    if (input.fromChain === input.toChain) {
      const dex = dexOf(input.fromChain);
      return {
        steps: 1,
        estimatedSeconds: SWAP_SECONDS,
        providers: [dex],
        legs: [{ kind: 'swap', chain: input.fromChain, fromToken: input.fromToken, toToken: input.toToken, provider: dex }],
      };
    }
    const carried = BRIDGED_TOKENS.has(input.fromToken) ? input.fromToken : BRIDGED_TOKENS.has(input.toToken) ? input.toToken : BRIDGE_CARRIER;
    const bridge = bridgeBetween(input.fromChain, input.toChain);
    const legs: RouteLegSpec[] = [];
    let estimatedSeconds = bridge.seconds;
    if (carried !== input.fromToken) {
      legs.push({ kind: 'swap', chain: input.fromChain, fromToken: input.fromToken, toToken: carried, provider: dexOf(input.fromChain) });
      estimatedSeconds += SWAP_SECONDS;
    }
    legs.push({ kind: 'bridge', fromChain: input.fromChain, toChain: input.toChain, token: carried, provider: bridge.name });
    if (carried !== input.toToken) {
      legs.push({ kind: 'swap', chain: input.toChain, fromToken: carried, toToken: input.toToken, provider: dexOf(input.toChain) });
      estimatedSeconds += SWAP_SECONDS;
    }
    return { steps: legs.length, estimatedSeconds, providers: legs.map((leg) => leg.provider), legs };
  }

  /**
   * A transfer is one bridge step, plus a destination swap when the token changes on the way. On one chain it is
   * a single `direct` transaction (a DEX router can pay the recipient in the same transaction as the swap).
   */
  async bridgeRoute(input: BridgeRouteInput): Promise<BridgeRoute> {
    if (input.fromChain === input.toChain) {
      // The same token on the same chain is a plain send: nothing to route.
      const legs: RouteLegSpec[] =
        input.toToken === input.token
          ? []
          : [{ kind: 'swap', chain: input.fromChain, fromToken: input.token, toToken: input.toToken, provider: dexOf(input.fromChain) }];
      return { steps: 1, estimatedSeconds: DIRECT_TRANSFER_SECONDS, bridge: 'direct', legs };
    }
    const bridge = bridgeBetween(input.fromChain, input.toChain);
    const swaps = input.toToken !== input.token;
    const legs: RouteLegSpec[] = [{ kind: 'bridge', fromChain: input.fromChain, toChain: input.toChain, token: input.token, provider: bridge.name }];
    if (swaps) legs.push({ kind: 'swap', chain: input.toChain, fromToken: input.token, toToken: input.toToken, provider: dexOf(input.toChain) });
    return {
      steps: legs.length,
      estimatedSeconds: bridge.seconds + (swaps ? SWAP_SECONDS : 0),
      bridge: bridge.name,
      legs,
    };
  }
}

/** An estimate for people: "~15 seconds" below a minute and a half, then "~3 minutes", from an hour "~2 hours". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) throw new Error(`a duration must be 0 seconds or more, got ${seconds}`);
  if (seconds < 90) return approximately(Math.round(seconds), 'second');
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return approximately(minutes, 'minute');
  return approximately(Math.round(minutes / 60), 'hour');
}

function approximately(count: number, unit: string): string {
  return `~${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** The swap and bridge routes of each environment: the sandbox's for test keys; live keys have none yet (refused). */
export class RouteProviders extends ByEnvironment<RouteProvider> {
  constructor(test: RouteProvider, live: RouteProvider | undefined) {
    super('Live swaps and transfers need live DEX and bridge routes', test, live);
  }
}
