import { AppError, type FailureReason, type SwapQuote, type Tenant } from '@ramp/contracts';
import { dec } from '@ramp/money';
import { isInitiated, type WithInitiation } from '@ramp/transactions';
import { planRoute, scaleLeg, type PlannedLeg, type RouteLegSpec } from './plan';

/**
 * A swap or a cross-chain transfer as an event-sourced transaction, pure: the quoted route executed leg by leg.
 *
 * Hold the wallet's tokens; run each leg (a DEX swap on one chain, a bridge between two) in order, each swap
 * reverting if it would give less than its minimum (the quote's slippage); then settle in the ledger (capture the
 * hold, credit the wallet when it is the destination) and complete. Any failure records why, unwinds the legs that
 * ran, last first (a bridge back, a swap back), releases the hold so that the wallet has its whole amount again, and
 * only then fails the transaction.
 */

export type RouteKind = 'swap' | 'transfer';

/**
 * What the customer ordered: a swap quote's terms (a transfer quote has all but the minimum and the slippage, which
 * its kind decides). Amounts are decimal strings, fees in the source token, slippage in percent.
 */
export type RouteOrder = Pick<
  SwapQuote.Response,
  'quoteId' | 'fromChain' | 'toChain' | 'fromToken' | 'toToken' | 'fromAmount' | 'toAmount' | 'minimumToAmount' | 'slippage' | 'fees'
>;

type DeliveryTerms = Pick<RouteOrder, 'minimumToAmount' | 'slippage'>;

/** The fields every swap and transfer quote has, and the terms of delivery the kind decides. */
export function routeOrder(quote: Omit<RouteOrder, keyof DeliveryTerms>, terms: DeliveryTerms): RouteOrder {
  const { quoteId, fromChain, toChain, fromToken, toToken, fromAmount, toAmount, fees } = quote;
  return { quoteId, fromChain, toChain, fromToken, toToken, fromAmount, toAmount, fees, ...terms };
}

/** Where the last leg delivers: the managed wallet itself (credited in the ledger) or an address on `toChain`. */
export type RouteDestination = { kind: 'wallet'; walletId: string; address: string } | { kind: 'address'; address: string };

export interface ManagedWallet {
  walletId: string;
  chain: string;
  address: string;
}

/**
 * The destination an address stands for: the managed wallet itself when it is the wallet's own address on the
 * wallet's chain (so the ledger credits what arrives there), otherwise an outside address.
 */
export function destinationOf(address: string, chain: string, wallet: ManagedWallet): RouteDestination {
  return chain === wallet.chain && address.toLowerCase() === wallet.address.toLowerCase()
    ? { kind: 'wallet', walletId: wallet.walletId, address: wallet.address }
    : { kind: 'address', address };
}

export interface RouteInitiated {
  transactionId: string;
  kind: RouteKind;
  tenant: Tenant;
  walletId: string;
  order: RouteOrder;
  legs: PlannedLeg[];
  destination: RouteDestination;
  reference: string | null;
  callbackUrl: string | null;
  at: string;
}

interface RoutePayloads {
  initiated: RouteInitiated;
  funds_held: { at: string };
  /** `userOperationHash`: the leg ran as a managed wallet's UserOperation (`transactionHash` is its bundle's). */
  leg_completed: { index: number; amountOut: string; transactionHash: string; userOperationHash?: string; at: string };
  /** `failedHash`: the failed leg's own transaction, when it was mined and reverted (an on-chain swap). */
  failing: { errorMessage: string; failureReason?: FailureReason; failedLeg: number | null; failedHash?: string; at: string };
  leg_reversed: { index: number; transactionHash: string; at: string };
  funds_released: { at: string };
  completed: { toAmount: string; at: string };
  failed: { errorMessage: string; failureReason?: FailureReason; at: string };
}

export type RouteEventName = keyof RoutePayloads;
/** `swap.leg_completed`, `transfer.failed`, ...: the kind is the prefix, so each kind has its own event types. */
export type RouteEventOf<N extends RouteEventName> = { type: `${RouteKind}.${N}`; data: RoutePayloads[N] };
export type RouteEvent = { [N in RouteEventName]: RouteEventOf<N> }[RouteEventName];

export type RouteCommand =
  | { type: 'initiate'; data: RouteInitiated }
  | { type: 'recordFundsHeld'; at: string }
  | { type: 'recordLeg'; index: number; at: string; ok: true; amountOut: string; transactionHash: string; userOperationHash?: string }
  /**
   * `wouldGive`: the swap reverted because it would have given less than its minimum; `transactionHash`: the leg's
   * transaction that reverted on chain (absent when it was refused before being sent, or on the sandbox's rails).
   */
  | { type: 'recordLeg'; index: number; at: string; ok: false; reason: string; wouldGive?: string; transactionHash?: string }
  | { type: 'recordReversal'; index: number; transactionHash: string; at: string }
  | { type: 'recordFundsReleased'; at: string }
  | { type: 'fail'; reason: string; failureReason: FailureReason; at: string }
  | { type: 'complete'; at: string };

export interface LegResult {
  amountOut: string;
  transactionHash: string;
  /** The leg ran as (or began with) an operation of the managed wallet's smart account. */
  userOperationHash?: string;
}

export interface RouteState {
  initiated?: RouteInitiated;
  status: 'pending' | 'completed' | 'failed';
  fundsHeld: boolean;
  /** The legs that ran, in order. */
  executed: LegResult[];
  /** Reversal hashes of unwound legs, by leg index. */
  reversed: Record<number, string>;
  failing?: string;
  /** Why it failed, for programs (absent on events recorded before failure reasons existed). */
  failureReason?: FailureReason;
  failedLeg?: number | null;
  /** The failed leg's reverted transaction, when it has one. */
  failedHash?: string;
  fundsReleased: boolean;
  toAmount?: string;
  errorMessage?: string;
  createdAt?: string;
  updatedAt?: string;
}

export const initialRouteState: RouteState = { status: 'pending', fundsHeld: false, executed: [], reversed: {}, fundsReleased: false };

const nameOf = (event: RouteEvent): RouteEventName => event.type.slice(event.type.indexOf('.') + 1) as RouteEventName;

export function evolveRoute(state: RouteState, event: RouteEvent): RouteState {
  const next: RouteState = { ...state, updatedAt: event.data.at };
  const name = nameOf(event);
  switch (name) {
    case 'initiated':
      return { ...next, initiated: event.data as RouteInitiated, createdAt: event.data.at };
    case 'funds_held':
      return { ...next, fundsHeld: true };
    case 'leg_completed': {
      const data = event.data as RoutePayloads['leg_completed'];
      const ran: LegResult = { amountOut: data.amountOut, transactionHash: data.transactionHash };
      if (data.userOperationHash !== undefined) ran.userOperationHash = data.userOperationHash;
      return { ...next, executed: [...state.executed, ran] };
    }
    case 'failing': {
      const data = event.data as RoutePayloads['failing'];
      return {
        ...next,
        failing: data.errorMessage,
        failureReason: data.failureReason,
        failedLeg: data.failedLeg,
        ...(data.failedHash !== undefined && { failedHash: data.failedHash }),
      };
    }
    case 'leg_reversed': {
      const data = event.data as RoutePayloads['leg_reversed'];
      return { ...next, reversed: { ...state.reversed, [data.index]: data.transactionHash } };
    }
    case 'funds_released':
      return { ...next, fundsReleased: true };
    case 'completed':
      return { ...next, status: 'completed', toAmount: (event.data as RoutePayloads['completed']).toAmount };
    case 'failed':
      const data = event.data as RoutePayloads['failed'];
      return { ...next, status: 'failed', errorMessage: data.errorMessage, failureReason: data.failureReason ?? state.failureReason };
    default: {
      const unknown: never = name;
      throw new Error(`unknown route event ${String(unknown)}`);
    }
  }
}

/** What the process does next; `none` when the transaction is done. */
export type RouteStep =
  | { kind: 'placeHold' }
  | { kind: 'executeLeg'; index: number }
  | { kind: 'settle' }
  | { kind: 'reverseLeg'; index: number }
  | { kind: 'releaseHold' }
  | { kind: 'fail' }
  | { kind: 'none' };

export function nextRouteStep(state: RouteState): RouteStep {
  if (!isInitiated(state) || state.status !== 'pending') return { kind: 'none' };
  if (state.failing !== undefined) {
    for (let index = state.executed.length - 1; index >= 0; index--) {
      if (state.reversed[index] === undefined) return { kind: 'reverseLeg', index };
    }
    // Released even when no hold was recorded: a placement refused here may still land (a race, a late reply), and
    // the ledger records a hold that was never placed as released, so nothing can stay held after a failure.
    if (!state.fundsReleased) return { kind: 'releaseHold' };
    return { kind: 'fail' };
  }
  if (!state.fundsHeld) return { kind: 'placeHold' };
  if (state.executed.length < state.initiated.legs.length) return { kind: 'executeLeg', index: state.executed.length };
  return { kind: 'settle' };
}

/** What leg `index` is sent with: what came out of the leg before it, and what it should give (see scaleLeg). */
export function legOrder(state: WithInitiation<RouteState>, index: number): PlannedLeg & { amountIn: string; amountOut: string; minimumOut: string } {
  const legs = state.initiated.legs;
  const leg = legs[index]!;
  const actualIn = index === 0 ? leg.amountIn : state.executed[index - 1]!.amountOut;
  return { ...leg, ...scaleLeg(leg, actualIn, index === legs.length - 1) };
}

/** How a leg reads in messages: "the USDC to ETH swap on base (Aerodrome)", "the Across bridge of ETH from base to bsc". */
export function describeLeg(leg: PlannedLeg): string {
  return leg.kind === 'swap'
    ? `the ${leg.fromToken} to ${leg.toToken} swap on ${leg.fromChain} (${leg.provider})`
    : `the ${leg.provider} bridge of ${leg.fromToken} from ${leg.fromChain} to ${leg.toChain}`;
}

function event<N extends RouteEventName>(kind: RouteKind, name: N, data: RoutePayloads[N]): RouteEvent {
  return { type: `${kind}.${name}`, data } as RouteEvent;
}

function legOutcome(state: WithInitiation<RouteState>, command: Extract<RouteCommand, { type: 'recordLeg' }>): RouteEvent[] {
  const { kind, order } = state.initiated;
  const leg = legOrder(state, command.index);
  const at = command.at;
  const slippage = (got: string) =>
    leg.kind === 'swap'
      ? `Slippage exceeded: ${describeLeg(leg)} would give ${got} ${leg.toToken}, less than the minimum of ${leg.minimumOut} ${leg.toToken} that the ${order.slippage}% slippage tolerance allows`
      : `${capitalize(describeLeg(leg))} would deliver ${got} ${leg.toToken}, less than the ${leg.minimumOut} ${leg.toToken} quoted`;
  if (!command.ok) {
    const errorMessage = command.wouldGive !== undefined ? slippage(command.wouldGive) : `${capitalize(describeLeg(leg))} failed: ${command.reason}`;
    const failureReason = leg.kind === 'bridge' ? 'BRIDGE_FAILED' : command.wouldGive !== undefined ? 'SLIPPAGE_EXCEEDED' : 'SWAP_FAILED';
    return [
      event(kind, 'failing', {
        errorMessage,
        failureReason,
        failedLeg: command.index,
        ...(command.transactionHash !== undefined && { failedHash: command.transactionHash }),
        at,
      }),
    ];
  }
  const completed = event(kind, 'leg_completed', {
    index: command.index,
    amountOut: command.amountOut,
    transactionHash: command.transactionHash,
    ...(command.userOperationHash !== undefined && { userOperationHash: command.userOperationHash }),
    at,
  });
  // A provider that ignored the minimum: the leg happened, so it is recorded, then unwound like any other failure,
  // unless it was the last leg and paid an address outside the platform: what was delivered cannot be taken back,
  // so the transaction completes with what was delivered (the view shows it) rather than refunding on top.
  const deliveredOutside = command.index === state.initiated.legs.length - 1 && state.initiated.destination.kind === 'address';
  if (dec(command.amountOut).lt(leg.minimumOut) && !deliveredOutside) {
    const failureReason = leg.kind === 'bridge' ? 'BRIDGE_FAILED' : 'SLIPPAGE_EXCEEDED';
    return [completed, event(kind, 'failing', { errorMessage: slippage(command.amountOut), failureReason, failedLeg: command.index, at })];
  }
  return [completed];
}

const capitalize = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * Decisions. A command that arrives again after it took effect (a retried step) decides nothing new, so replays are
 * harmless; one for a step that is not the current one is ignored the same way.
 */
export function decideRoute(command: RouteCommand, state: RouteState): RouteEvent[] {
  if (command.type === 'initiate') {
    if (isInitiated(state)) return [];
    return [event(command.data.kind, 'initiated', command.data)];
  }
  if (!isInitiated(state)) throw new AppError('TRANSACTION_NOT_FOUND', 'The transaction was not found');
  if (state.status !== 'pending') return [];
  const { kind } = state.initiated;
  const step = nextRouteStep(state);
  const at = command.at;
  switch (command.type) {
    case 'recordFundsHeld':
      return step.kind === 'placeHold' ? [event(kind, 'funds_held', { at })] : [];
    case 'recordLeg':
      return step.kind === 'executeLeg' && step.index === command.index ? legOutcome(state, command) : [];
    case 'recordReversal':
      return step.kind === 'reverseLeg' && step.index === command.index
        ? [event(kind, 'leg_reversed', { index: command.index, transactionHash: command.transactionHash, at })]
        : [];
    case 'recordFundsReleased':
      return step.kind === 'releaseHold' ? [event(kind, 'funds_released', { at })] : [];
    case 'fail':
      if (state.failing !== undefined)
        return step.kind === 'fail'
          ? [event(kind, 'failed', { errorMessage: state.failing, failureReason: state.failureReason ?? 'TRANSACTION_FAILED', at })]
          : [];
      if (step.kind === 'settle') throw new AppError('TRANSACTION_STATE_CONFLICT', 'Every leg has run: the transaction can no longer fail');
      return [event(kind, 'failing', { errorMessage: command.reason, failureReason: command.failureReason, failedLeg: null, at })];
    case 'complete': {
      if (step.kind !== 'settle') return [];
      const toAmount = state.executed[state.executed.length - 1]!.amountOut;
      return [event(kind, 'completed', { toAmount, at })];
    }
    default: {
      const unknown: never = command;
      throw new Error(`unknown route command ${JSON.stringify(unknown)}`);
    }
  }
}

export const routeDecider = { initialState: initialRouteState, evolve: evolveRoute, decide: decideRoute };

/** What enters the first leg: the amount less the fees kept at the source (the platform's, and the bridge's). */
export function netOfFees(order: Pick<RouteOrder, 'fromAmount' | 'fees'>): string {
  return dec(order.fromAmount).sub(order.fees.totalFee).toFixed();
}

/** The legs of a swap or transfer with the amounts the quote expects of each (see planRoute). */
export function planOrder(order: RouteOrder, legs: readonly RouteLegSpec[], usdPrices: Readonly<Record<string, string>>) {
  return planRoute({
    legs,
    amountIn: netOfFees(order),
    toAmount: order.toAmount,
    minimumToAmount: order.minimumToAmount,
    slippagePercent: String(order.slippage),
    usdPrices,
  });
}
