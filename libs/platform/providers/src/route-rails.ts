import { createHash } from 'crypto';
import { tokenDecimals } from '@ramp/chains';
import { dec, formatToken } from '@ramp/money';
import { sandboxHash } from './ramp-rails';

/** What the order a leg belongs to looked like when it was placed: the sandbox keys its magic values on it. */
export interface RouteOrderContext {
  transactionId: string;
  /** The quoted amount of the source token, as the customer asked for it. */
  fromAmount: string;
}

export interface SwapLegInput {
  order: RouteOrderContext;
  index: number;
  chain: string;
  provider: string;
  fromToken: string;
  toToken: string;
  amountIn: string;
  /** What the quote's price gives for amountIn; the swap reverts below minimumOut (the slippage tolerance). */
  expectedOut: string;
  minimumOut: string;
  recipient: string;
}

export interface BridgeLegInput {
  order: RouteOrderContext;
  index: number;
  provider: string;
  fromChain: string;
  toChain: string;
  token: string;
  amount: string;
  /** The bridge refunds on the source chain rather than deliver less (like an Across deposit's outputAmount). */
  minimumOut: string;
  recipient: string;
}

export interface ReverseLegInput {
  order: RouteOrderContext;
  index: number;
  kind: 'swap' | 'bridge';
  provider: string;
  fromChain: string;
  toChain: string;
  /** What the leg gave, to be given back as what it took. */
  token: string;
  amount: string;
}

/**
 * A leg that ran, or why not: a swap that reverted below its minimum says in `wouldGive` how much it would have given,
 * and a leg whose transaction was mined and reverted gives its `transactionHash`.
 */
/** `userOperationHash`: the leg ran as an operation of a managed wallet's smart account (ChainLegs). */
export type LegResult =
  | { ok: true; amountOut: string; transactionHash: string; userOperationHash?: string }
  | { ok: false; reason: string; wouldGive?: string; transactionHash?: string };

/**
 * What swaps and transfers need from the outside: a DEX router per chain, bridges between chains, the way back when a
 * later leg fails, and the platform's own account on each chain where a route's intermediate legs land. Real adapters
 * call an aggregator and the bridges' APIs and must be idempotent by (transaction, leg): a step is re-run after a
 * crash, so they pass that pair as the provider's client order id. The sandbox answers deterministically (the service
 * spaces the legs by SANDBOX_STEP_DELAY_MS).
 */
export interface RouteRails {
  /** The platform's settlement address on a chain: EVM hex, or a Solana public key. */
  settlementAddress(chain: string): string;
  swap(input: SwapLegInput): Promise<LegResult>;
  bridge(input: BridgeLegInput): Promise<LegResult>;
  reverse(input: ReverseLegInput): Promise<{ transactionHash: string }>;
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString('hex')}`);
  let text = '';
  while (value > 0n) {
    text = BASE58[Number(value % 58n)] + text;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    text = `1${text}`;
  }
  return text;
}

/** A Solana transaction signature: base58 of 64 bytes, the same every time for the same parts. */
const solanaSignature = (...parts: string[]): string => base58(createHash('sha512').update(parts.join(':')).digest());

/** The chain's kind of transaction hash: 0x and 64 hex digits on EVM chains, a base58 signature on Solana. */
export function chainTransactionHash(chain: string, ...parts: string[]): string {
  return chain === 'solana' ? solanaSignature(...parts) : sandboxHash(...parts);
}

export class SandboxRouteRails implements RouteRails {
  settlementAddress(chain: string): string {
    const seed = createHash('sha256').update(`sandbox-settlement:${chain}`).digest();
    return chain === 'solana' ? base58(seed) : `0x${seed.subarray(0, 20).toString('hex')}`;
  }

  async swap(input: SwapLegInput): Promise<LegResult> {
    // The rails fill at the quote: price moves and failed bridges are produced on chain (the local chains' pools and
    // intent bridge), where the routes between chains with nodes run.
    const fill = formatToken(dec(input.expectedOut), tokenDecimals(input.toToken, input.chain));
    if (dec(fill).lt(input.minimumOut)) {
      return { ok: false, reason: `${input.provider} reverted: output ${fill} ${input.toToken} below the minimum ${input.minimumOut}`, wouldGive: fill };
    }
    return { ok: true, amountOut: fill, transactionHash: chainTransactionHash(input.chain, input.order.transactionId, 'leg', String(input.index)) };
  }

  async bridge(input: BridgeLegInput): Promise<LegResult> {
    // What arrives: the amount as the token's decimals hold it on the destination chain.
    const decimals = tokenDecimals(input.token, input.toChain, input.fromChain);
    const amountOut = formatToken(dec(input.amount), decimals);
    if (dec(amountOut).lt(input.minimumOut)) {
      return {
        ok: false as const,
        reason: `${input.provider} could not deliver the minimum ${input.minimumOut} ${input.token} and refunded the order on ${input.fromChain}`,
      };
    }
    // The hash of the fill on the destination chain: where the funds arrive.
    return { ok: true as const, amountOut, transactionHash: chainTransactionHash(input.toChain, input.order.transactionId, 'leg', String(input.index)) };
  }

  async reverse(input: ReverseLegInput) {
    // A swap is undone on its own chain; a bridge by bridging back, which lands on the source chain.
    return { transactionHash: chainTransactionHash(input.fromChain, input.order.transactionId, 'reverse', String(input.index)) };
  }
}
