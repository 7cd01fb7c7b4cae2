import { nextPayoutStep, type PayoutState } from '@ramp/banking';
import { AppError, type FailureReason, type OfframpQuote, type Tenant } from '@ramp/contracts';
import { dec } from '@ramp/money';
import { isInitiated, type WithInitiation } from '@ramp/transactions';
import { awaitsApproval, decideApproval, DECLINED_IN_REVIEW, type ApprovalCommand, type ApprovalState } from './approval';
import type { ComplianceHold, CounterpartyRole } from './screening';
import type { RampSettlement } from './onchain';

/**
 * An off-ramp as an event-sourced transaction: the events, the state they fold into (`evolve`), the decisions on
 * commands (`decide`) and the next step the process must take (`nextStep`). All pure.
 *
 * Custodial (walletId): hold the wallet's tokens, swap them to CNGN unless they are CNGN, send the CNGN to the
 * off-ramp provider and pay the NGN out, capture the hold, complete. Non-custodial (sourceAddress): wait for the
 * deposit at `depositAddress` until it expires, then the same from the swap on. Any failure records why, gives back
 * what was taken (releases the hold, or returns the deposit to its sender) and only then fails the transaction. A
 * custodial failure releases the hold even when none was recorded, as swaps and transfers do: the ledger records a hold
 * that was never placed as released, so a placement still in flight (a race, a late reply) finds it settled.
 */

export type OfframpEvent =
  | {
      type: 'offramp.initiated';
      data: {
        transactionId: string;
        tenant: Tenant;
        quote: OfframpQuote.Response;
        walletId: string | null;
        sourceAddress: string | null;
        depositAddress: string | null;
        depositExpiresAt: string | null;
        reference: string | null;
        callbackUrl: string | null;
        /** The deposit address is watched on its real chain (absent: a simulated address, deposits played by the sandbox). */
        depositOnchain?: boolean;
        /** Where the swap to CNGN and the CNGN's transfer to the provider run (absent: simulated, as before part 2). */
        settlement?: RampSettlement;
        at: string;
      };
    }
  | { type: 'offramp.funds_held'; data: { at: string } }
  /**
   * `from`: the deposit's sender on chain (absent for a simulated deposit): where a refund goes. `tokenSymbol` and
   * `depositId` (chain, hash and log index): which deposit it was (absent on events recorded before them, and for a
   * simulated deposit: the quoted token).
   */
  | { type: 'offramp.deposit_received'; data: { amount: string; transactionHash: string; from?: string; tokenSymbol?: string; depositId?: string; at: string } }
  /**
   * A reorganisation removed the deposit (its credit `credit`): it never arrived. Before the payout and any refund, the
   * off-ramp fails (DEPOSIT_REVERSED) and nothing is sent back; after the payout (`afterPayout`) it stays completed and
   * is flagged for an operator, the loss booked by the ledger; after a refund (`refunded`) the refund is the loss.
   */
  | { type: 'offramp.deposit_reversed'; data: DepositMovement & { afterPayout: boolean; refunded: boolean; at: string } }
  /** The chain took the reversed deposit back in after the payout: the loss booked for it is recovered. */
  | { type: 'offramp.deposit_restored'; data: DepositMovement & { at: string } }
  | { type: 'offramp.swapped'; data: { cngnAmount: string; transactionHash: string; userOperationHash?: string; at: string } }
  /**
   * `transactionHash`: the CNGN's settlement on chain (absent for a live payout from a bank partner's balance: no
   * transfer on chain pays it). `payoutReference`: the bank's (sandbox) or the platform's reference at the partner.
   */
  | { type: 'offramp.paid_out'; data: { transactionHash?: string; payoutReference: string; at: string } }
  /**
   * A live payout's attempt at a bank partner, each time what is known of it changes. `sending`: the partner is about
   * to be asked (again), written before it is, with `sends` counting the asks, so that a crash never lets the attempt go
   * to another partner and a refusal is believed only for the very first ask; then what the partner says (PayoutState).
   * Attempt n+1 exists only once every earlier one is `failed` or `rejected`.
   */
  | { type: 'offramp.payout_attempted'; data: PayoutAttemptRecord & { sending?: true; at: string } }
  /**
   * The bank sent a paid payout back (the partner's `transfer.reversed`): the Naira is back in the partner balance,
   * and the off-ramp is held for an operator (pay again or give the tokens back); the integrator is told.
   */
  | { type: 'offramp.payout_reversed'; data: { provider: string; payoutReference: string; amount: string; at: string } }
  /**
   * A live off-ramp swapped on chain whose payout every partner refused or failed: its token is CNGN in the hot wallet
   * by then, and giving the deposit back as it came would take another off-ramp's tokens (the hot wallet holds those
   * awaiting their swap). Held for an operator (pay it again, or swap back and refund), never refunded on its own.
   */
  | { type: 'offramp.payout_held'; data: { errorMessage: string; at: string } }
  /** A live payout above LIVE_APPROVAL_ABOVE_NGN waits for an operator's approval (see ApprovalState). */
  | { type: 'offramp.approval_required'; data: { amountNgn: string; thresholdNgn: string; at: string } }
  | { type: 'offramp.approved'; data: { operator: string; at: string } }
  /**
   * An operator declined it instead: followed by `offramp.failing` (DECLINED_IN_REVIEW: the tokens given back), or by
   * `offramp.payout_held` after a live swap (the tokens are CNGN now: an operator settles it).
   */
  | { type: 'offramp.approval_rejected'; data: { operator: string; reason: string; at: string } }
  /** Held for compliance: a counterparty is on the screening denylist. Nothing runs on its own from then on. */
  | { type: 'offramp.compliance_hold'; data: ComplianceHold }
  | { type: 'offramp.completed'; data: { at: string } }
  | { type: 'offramp.failing'; data: { errorMessage: string; failureReason?: FailureReason; at: string } }
  | { type: 'offramp.funds_released'; data: { at: string } }
  | { type: 'offramp.deposit_refunded'; data: { transactionHash: string; at: string } }
  | { type: 'offramp.failed'; data: { errorMessage: string; failureReason?: FailureReason; at: string } };

export type OfframpEventType = OfframpEvent['type'];

/** Which deposit, and what it was: what the ledger books a reversal's loss (or its recovery) with. */
export interface DepositMovement {
  depositId: string;
  credit: number;
  environment: Tenant['environment'];
  chain: string;
  tokenSymbol: string;
  amount: string;
}

export type Stage = 'funding' | 'swap' | 'payout';

/** One attempt of a live payout (see nextPayoutStep): at which partner, under which reference, and what it came to. */
export interface PayoutAttemptRecord {
  attempt: number;
  provider: string;
  reference: string;
  state: PayoutState;
  /** How often the partner has been asked for this transfer (each ask recorded before it is made). */
  sends: number;
  reason?: string;
  /** The partner's own id of the transfer (Paystack's transfer code, Flutterwave's id). */
  partnerReference?: string;
}

export type OfframpCommand =
  | { type: 'initiate'; data: Extract<OfframpEvent, { type: 'offramp.initiated' }>['data'] }
  | { type: 'recordFundsHeld'; at: string }
  /** A deposit at the off-ramp's address: on chain, with its token and id; simulated (the sandbox's), of the quoted token. */
  | { type: 'recordDeposit'; amount: string; transactionHash: string; from?: string; tokenSymbol?: string; depositId?: string; credit?: number; at: string }
  /** A reorganisation removed a deposit at the off-ramp's address (`refunded`: the chain service had sent it back). */
  | { type: 'recordDepositReversed'; depositId: string; transactionHash: string; credit: number; refunded: boolean; at: string }
  | { type: 'recordSwap'; at: string; ok: true; cngnAmount: string; transactionHash: string; userOperationHash?: string }
  | { type: 'recordSwap'; at: string; ok: false; reason: string }
  | { type: 'recordPayout'; at: string; ok: true; transactionHash: string; payoutReference: string }
  | { type: 'recordPayout'; at: string; ok: false; reason: string }
  /** A live payout's attempt is about to be sent (again) to its partner: a new attempt, or the next ask of an `unknown` one. */
  | { type: 'recordPayoutSending'; at: string; attempt: number; provider: string; reference: string }
  /**
   * What the partner says of a live payout's attempt now, in answer to its `send`th ask (or to a look-up after it):
   * see offramp.payout_attempted.
   */
  | ({ type: 'recordPayoutAttempt'; at: string; send: number } & Omit<PayoutAttemptRecord, 'sends'>)
  /** The partner says the paid payout under `payoutReference` was sent back by the bank. */
  | { type: 'recordPayoutReversed'; at: string; payoutReference: string }
  | { type: 'fail'; at: string; reason: string; failureReason: FailureReason }
  | ApprovalCommand
  /** A counterparty is on the screening denylist: held for compliance (see screening.ts), whatever comes next. */
  | { type: 'holdForCompliance'; address: string; role: CounterpartyRole; reason: string; at: string }
  | { type: 'expireDeposit'; at: string }
  | { type: 'recordFundsReleased'; at: string }
  | { type: 'recordDepositRefunded'; at: string; transactionHash: string }
  | { type: 'complete'; at: string };

export type OfframpStatus = 'pending' | 'completed' | 'failed';

export interface OfframpState {
  initiated?: Extract<OfframpEvent, { type: 'offramp.initiated' }>['data'];
  status: OfframpStatus;
  fundsHeld: boolean;
  deposit?: { amount: string; transactionHash: string; from?: string; tokenSymbol?: string; depositId?: string };
  /** `userOperationHash`: the swap ran from a managed wallet's own account, as that UserOperation (`transactionHash`: its bundle). */
  swap?: { cngnAmount: string; transactionHash: string; userOperationHash?: string };
  payout?: { transactionHash?: string; payoutReference: string };
  /** A live payout's attempts, in order. */
  payoutAttempts?: PayoutAttemptRecord[];
  /**
   * The attempt whose next ask was just recorded (the last event is its `sending`): only the first run of the job that
   * event scheduled sends it; any later event clears it.
   */
  payoutToSend?: number;
  /** The paid payout came back (offramp.payout_reversed): held for an operator. */
  payoutReversal?: { provider: string; payoutReference: string; amount: string; at: string };
  /** Every payout failed after a live swap on chain (offramp.payout_held): held for an operator. */
  payoutHeld?: { errorMessage: string; at: string };
  /** A live payout above the approval threshold: that it waits, and who approved it. */
  approval?: ApprovalState;
  /** Held for compliance (screening): no step runs until an operator decides. */
  complianceHold?: ComplianceHold;
  failing?: string;
  /** Why it failed, for programs (absent on events recorded before failure reasons existed). */
  failureReason?: FailureReason;
  fundsReleased: boolean;
  depositRefund?: string;
  /** The recorded deposit was reversed by a reorganisation (until the chain takes it back in). */
  depositReversal?: { credit: number; afterPayout: boolean; refunded: boolean };
  errorMessage?: string;
  createdAt?: string;
  updatedAt?: string;
}

export const initialOfframpState: OfframpState = { status: 'pending', fundsHeld: false, fundsReleased: false };

export function evolveOfframp(state: OfframpState, event: OfframpEvent): OfframpState {
  const at = event.data.at;
  const { payoutToSend: _sendDue, ...rest } = state;
  const next: OfframpState = { ...rest, updatedAt: at };
  switch (event.type) {
    case 'offramp.initiated':
      return { ...next, initiated: event.data, createdAt: at };
    case 'offramp.funds_held':
      return { ...next, fundsHeld: true };
    case 'offramp.deposit_received':
      return {
        ...next,
        deposit: withoutAbsent({
          amount: event.data.amount,
          transactionHash: event.data.transactionHash,
          from: event.data.from,
          tokenSymbol: event.data.tokenSymbol,
          depositId: event.data.depositId,
        }),
        depositReversal: undefined,
      };
    case 'offramp.deposit_reversed':
      return { ...next, depositReversal: { credit: event.data.credit, afterPayout: event.data.afterPayout, refunded: event.data.refunded } };
    case 'offramp.deposit_restored':
      return { ...next, depositReversal: undefined };
    case 'offramp.swapped':
      return {
        ...next,
        swap: {
          cngnAmount: event.data.cngnAmount,
          transactionHash: event.data.transactionHash,
          ...(event.data.userOperationHash !== undefined && { userOperationHash: event.data.userOperationHash }),
        },
      };
    case 'offramp.paid_out':
      return { ...next, payout: withoutAbsent({ transactionHash: event.data.transactionHash, payoutReference: event.data.payoutReference }) };
    case 'offramp.payout_attempted': {
      const { at: _at, sending, ...attempt } = event.data;
      const attempts = (state.payoutAttempts ?? []).filter((known) => known.attempt !== attempt.attempt);
      return {
        ...next,
        payoutAttempts: [...attempts, attempt].sort((a, b) => a.attempt - b.attempt),
        ...(sending && { payoutToSend: attempt.attempt }),
      };
    }
    case 'offramp.payout_reversed':
      return { ...next, payoutReversal: event.data };
    case 'offramp.payout_held':
      return { ...next, payoutHeld: event.data };
    case 'offramp.approval_required':
      return { ...next, approval: { ...state.approval, required: event.data } };
    case 'offramp.approved':
      return { ...next, approval: { ...state.approval, approved: event.data } };
    case 'offramp.approval_rejected':
      return { ...next, approval: { ...state.approval, rejected: event.data } };
    case 'offramp.compliance_hold':
      return { ...next, complianceHold: event.data };
    case 'offramp.completed':
      return { ...next, status: 'completed' };
    case 'offramp.failing':
      return { ...next, failing: event.data.errorMessage, failureReason: event.data.failureReason };
    case 'offramp.funds_released':
      return { ...next, fundsReleased: true };
    case 'offramp.deposit_refunded':
      return { ...next, depositRefund: event.data.transactionHash };
    case 'offramp.failed':
      return { ...next, status: 'failed', errorMessage: event.data.errorMessage, failureReason: event.data.failureReason ?? state.failureReason };
  }
}

export const isCustodial = (state: OfframpState): boolean => Boolean(state.initiated?.walletId);

/**
 * A live off-ramp whose swap ran on chain: what it took is CNGN in the hot wallet now, not the token it came as, and
 * the hot wallet's tokens are other off-ramps' awaiting their swap. Its failed payout is held for an operator
 * (offramp.payout_held) instead of giving back, from them, what it took.
 */
export const swappedLive = (state: OfframpState): boolean =>
  state.swap !== undefined && state.initiated?.tenant.environment === 'live' && state.initiated.settlement === 'onchain';
const isFunded = (state: OfframpState): boolean => (isCustodial(state) ? state.fundsHeld : state.deposit !== undefined);
const needsSwap = (state: OfframpState): boolean => state.initiated?.quote.tokenSymbol !== 'CNGN';

/**
 * Whether a payout may have moved Naira: it was paid, or a live attempt exists that is not known to have moved none
 * (anything but `failed` or `rejected`). From then on the off-ramp can no longer fail and give the tokens back.
 */
export function payoutStarted(state: OfframpState): boolean {
  return state.payout !== undefined || (state.payoutAttempts ?? []).some((attempt) => attempt.state !== 'failed' && attempt.state !== 'rejected');
}

/** What the process does next for a transaction in this state; `none` when it waits for the outside or is done. */
export type OfframpStep =
  | { kind: 'placeHold' }
  | { kind: 'awaitDeposit'; until: string }
  | { kind: 'swapToCngn' }
  | { kind: 'payout' }
  | { kind: 'captureHold' }
  | { kind: 'complete' }
  | { kind: 'releaseHold' }
  | { kind: 'refundDeposit' }
  | { kind: 'fail' }
  | { kind: 'none' };

export function nextOfframpStep(state: OfframpState): OfframpStep {
  // Held for compliance: nothing moves, a refund neither (it would go to the listed address), until an operator decides.
  if (state.complianceHold) return { kind: 'none' };
  // A deposit that arrived after the transaction failed (an expired address) is still given back; one the chain took
  // back (reversed) never arrived, and is not.
  if (state.status === 'failed' && state.deposit && state.depositRefund === undefined && !state.depositReversal) return { kind: 'refundDeposit' };
  if (!isInitiated(state) || state.status !== 'pending') return { kind: 'none' };
  if (state.failing !== undefined) {
    // Released even when no hold was recorded (see above): nothing can stay held after a failure.
    if (isCustodial(state) && !state.fundsReleased) return { kind: 'releaseHold' };
    if (!isCustodial(state) && state.deposit && state.depositRefund === undefined && !state.depositReversal) return { kind: 'refundDeposit' };
    return { kind: 'fail' };
  }
  if (!isFunded(state)) {
    return isCustodial(state) ? { kind: 'placeHold' } : { kind: 'awaitDeposit', until: state.initiated.depositExpiresAt ?? state.initiated.at };
  }
  if (needsSwap(state) && !state.swap) return { kind: 'swapToCngn' };
  // A payout the bank sent back, or one that failed after a live swap, waits for an operator: nothing more runs on its own.
  if (state.payoutReversal || state.payoutHeld) return { kind: 'none' };
  if (!state.payout) return { kind: 'payout' };
  return isCustodial(state) ? { kind: 'captureHold' } : { kind: 'complete' };
}

function depositData(command: Extract<OfframpCommand, { type: 'recordDeposit' }>): Extract<OfframpEvent, { type: 'offramp.deposit_received' }>['data'] {
  const { amount, transactionHash, from, tokenSymbol, depositId, at } = command;
  return { ...withoutAbsent({ amount, transactionHash, from, tokenSymbol, depositId }), at };
}

function withoutAbsent<T extends object>(data: T): T {
  return Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined)) as T;
}

/**
 * Whether a deposit can fund the off-ramp: only the quoted token does. One of another token is never this off-ramp's
 * (whatever its amount): the process sends it back as it arrived, and the off-ramp goes on waiting for its own.
 */
export function isQuotedToken(state: WithInitiation<OfframpState>, command: { tokenSymbol?: string }): boolean {
  return command.tokenSymbol === undefined || command.tokenSymbol === state.initiated.quote.tokenSymbol;
}

/** Whether the off-ramp's recorded deposit is this one (by its id; by its hash for a deposit recorded before ids). */
export function isRecordedDeposit(state: OfframpState, deposit: { depositId: string; transactionHash: string }): boolean {
  if (!state.deposit) return false;
  return state.deposit.depositId !== undefined ? state.deposit.depositId === deposit.depositId : state.deposit.transactionHash === deposit.transactionHash;
}

/**
 * Where a refund of the deposit goes: its sender on chain, or the declared `sourceAddress` when the chain shows none
 * (a simulated deposit, or a mint, whose sender is the zero address).
 */
export function refundAddressOf(state: WithInitiation<OfframpState>): string {
  const from = state.deposit?.from;
  return from && !/^0x0{40}$/i.test(from) ? from : state.initiated.sourceAddress!;
}

function refuse(message: string): never {
  throw new AppError('TRANSACTION_STATE_CONFLICT', message);
}

/**
 * Decisions. A command that arrives again after it took effect (a retried step) decides nothing new, so replays are
 * harmless; a command that makes no sense in the state is refused with CONFLICT (a bug or a late duplicate).
 */
export function decideOfframp(command: OfframpCommand, state: OfframpState): OfframpEvent[] {
  if (command.type === 'initiate') {
    if (isInitiated(state)) return [];
    if (!command.data.walletId === !command.data.sourceAddress)
      throw new AppError('INVALID_FIELD', 'walletId: give either walletId or sourceAddress', 'walletId');
    return [{ type: 'offramp.initiated', data: command.data }];
  }
  if (!isInitiated(state)) throw new AppError('TRANSACTION_NOT_FOUND', 'The transaction was not found');
  if (command.type === 'holdForCompliance') {
    if (state.complianceHold || state.status === 'completed') return [];
    const { address, role, reason, at } = command;
    return [{ type: 'offramp.compliance_hold', data: { address, role, reason, at } }];
  }
  if (command.type === 'recordDepositReversed') return decideReversal(command, state);
  if (command.type === 'recordPayoutReversed') return decidePayoutReversal(command, state);
  if (command.type === 'recordDeposit' && state.depositReversal && command.depositId !== undefined && command.depositId === state.deposit?.depositId) {
    return decideDepositBack(command, state);
  }
  if (state.status !== 'pending') {
    // Late news for a finished transaction: a deposit after expiry must be given back, everything else is a replay.
    if (command.type === 'recordDeposit' && !state.deposit && state.status === 'failed' && isQuotedToken(state, command)) {
      return [{ type: 'offramp.deposit_received', data: depositData(command) }];
    }
    if (command.type === 'recordDepositRefunded' && nextOfframpStep(state).kind === 'refundDeposit') {
      return [{ type: 'offramp.deposit_refunded', data: { transactionHash: command.transactionHash, at: command.at } }];
    }
    return [];
  }
  const at = command.at;
  const step = nextOfframpStep(state);
  switch (command.type) {
    case 'recordFundsHeld':
      return state.fundsHeld ? [] : [{ type: 'offramp.funds_held', data: { at } }];
    case 'recordDeposit': {
      if (isCustodial(state)) refuse('A custodial off-ramp takes no deposit');
      if (state.deposit || !isQuotedToken(state, command)) return [];
      const events: OfframpEvent[] = [{ type: 'offramp.deposit_received', data: depositData(command) }];
      const expected = state.initiated.quote.cryptoAmount;
      if (!dec(command.amount).eq(dec(expected)) && state.failing === undefined) {
        events.push({
          type: 'offramp.failing',
          data: {
            errorMessage: `The deposit was ${command.amount} ${state.initiated.quote.tokenSymbol}, not the quoted ${expected}; it is returned to the sender`,
            failureReason: 'DEPOSIT_AMOUNT_MISMATCH',
            at,
          },
        });
      }
      return events;
    }
    case 'expireDeposit':
      if (isCustodial(state) || state.deposit || state.failing !== undefined) return [];
      return [
        { type: 'offramp.failing', data: { errorMessage: 'No deposit was received before the deposit address expired', failureReason: 'DEPOSIT_EXPIRED', at } },
      ];
    case 'recordSwap':
      if (state.swap || step.kind !== 'swapToCngn') return [];
      return command.ok
        ? [
            {
              type: 'offramp.swapped',
              data: {
                cngnAmount: command.cngnAmount,
                transactionHash: command.transactionHash,
                ...(command.userOperationHash !== undefined && { userOperationHash: command.userOperationHash }),
                at,
              },
            },
          ]
        : [{ type: 'offramp.failing', data: { errorMessage: `The swap to CNGN failed: ${command.reason}`, failureReason: 'SWAP_FAILED', at } }];
    case 'recordPayout':
      if (state.payout || step.kind !== 'payout') return [];
      // A live payout is recorded attempt by attempt (recordPayoutAttempt); it fails only when every attempt is known
      // to have moved no Naira.
      if (state.payoutAttempts?.length) {
        if (command.ok) refuse('A live payout is paid through its attempts (recordPayoutAttempt)');
        if (payoutStarted(state)) refuse('A payout attempt may have paid: the off-ramp cannot fail now');
      }
      if (command.ok) return [{ type: 'offramp.paid_out', data: { transactionHash: command.transactionHash, payoutReference: command.payoutReference, at } }];
      if (swappedLive(state)) return [{ type: 'offramp.payout_held', data: { errorMessage: `The bank payout was rejected: ${command.reason}`, at } }];
      return [{ type: 'offramp.failing', data: { errorMessage: `The bank payout was rejected: ${command.reason}`, failureReason: 'PAYOUT_REJECTED', at } }];
    case 'requireApproval':
    case 'approve':
    case 'reject': {
      // The same decision again is nothing new, whatever the off-ramp has done since (held, given back).
      if (command.type === 'approve' ? state.approval?.approved : command.type === 'reject' && state.approval?.rejected) return [];
      // Only the payout waits for an approval, and only before any of it may have been sent.
      const beforePayout = step.kind === 'payout' && !state.payout && !payoutStarted(state);
      if (!beforePayout) {
        if (command.type !== 'requireApproval') refuse('The off-ramp does not wait for an approval now');
        return [];
      }
      const decided = decideApproval(command, state.approval);
      if (!decided) return [];
      if ('required' in decided) return [{ type: 'offramp.approval_required', data: decided.required }];
      if ('approved' in decided) return [{ type: 'offramp.approved', data: decided.approved }];
      const rejected: OfframpEvent = { type: 'offramp.approval_rejected', data: decided.rejected };
      // Declined after a live swap: the deposit is CNGN in the hot wallet now, and the hot wallet's stock of its token
      // is other off-ramps': held for an operator, as a payout that failed after the swap is. Before any swap, the
      // deposit (or the wallet's hold) is given back.
      if (swappedLive(state)) {
        const errorMessage = `Declined in review by ${decided.rejected.operator}: ${decided.rejected.reason}`;
        return [rejected, { type: 'offramp.payout_held', data: { errorMessage, at } }];
      }
      const errorMessage = `${DECLINED_IN_REVIEW}: the tokens are given back`;
      return [rejected, { type: 'offramp.failing', data: { errorMessage, failureReason: 'DECLINED_IN_REVIEW', at } }];
    }
    case 'recordPayoutSending':
      // Nothing is asked of a partner while the payout waits for an operator's approval, whatever asks.
      if (awaitsApproval(state.approval)) refuse("The payout waits for an operator's approval (npm run ops -- approve)");
      return decidePayoutSending(command, state, step);
    case 'recordPayoutAttempt':
      return decidePayoutAttempt(command, state, step);
    case 'fail':
      if (state.failing !== undefined)
        return step.kind === 'fail'
          ? [{ type: 'offramp.failed', data: { errorMessage: state.failing, failureReason: state.failureReason ?? 'TRANSACTION_FAILED', at } }]
          : [];
      if (state.payout) refuse('The NGN was paid out: the off-ramp can no longer fail');
      if (payoutStarted(state)) refuse('A payout attempt may have paid: the off-ramp can no longer fail');
      return [{ type: 'offramp.failing', data: { errorMessage: command.reason, failureReason: command.failureReason, at } }];
    case 'recordFundsReleased':
      return state.fundsReleased || step.kind !== 'releaseHold' ? [] : [{ type: 'offramp.funds_released', data: { at } }];
    case 'recordDepositRefunded':
      return state.depositRefund !== undefined || step.kind !== 'refundDeposit'
        ? []
        : [{ type: 'offramp.deposit_refunded', data: { transactionHash: command.transactionHash, at } }];
    case 'complete':
      return step.kind === 'complete' || step.kind === 'captureHold' ? [{ type: 'offramp.completed', data: { at } }] : [];
  }
}

/**
 * A reorganisation removed a deposit at the off-ramp's address. Only its recorded deposit matters here (another one was
 * sent back, and the ledger books what that cost). Before the payout and any refund: the off-ramp fails
 * (DEPOSIT_REVERSED), nothing to give back. After the payout: it stays as it is, flagged (afterPayout) with the loss
 * booked. After a refund: the refund was the loss.
 */
function decideReversal(command: Extract<OfframpCommand, { type: 'recordDepositReversed' }>, state: WithInitiation<OfframpState>): OfframpEvent[] {
  if (!state.deposit || state.depositReversal || !isRecordedDeposit(state, command)) return [];
  const { quote, tenant } = state.initiated;
  // A live payout under way may already have paid: the deposit's loss is booked as after a payout.
  const afterPayout = payoutStarted(state);
  const refunded = command.refunded || state.depositRefund !== undefined;
  const movement = depositMovement(state, command.depositId, command.credit, tenant.environment, quote.chain);
  const events: OfframpEvent[] = [{ type: 'offramp.deposit_reversed', data: { ...movement, afterPayout, refunded, at: command.at } }];
  if (state.status === 'pending' && !afterPayout && !refunded && state.failing === undefined) {
    events.push({
      type: 'offramp.failing',
      data: {
        errorMessage: `A reorganisation of ${quote.chain} removed the deposit ${state.deposit.transactionHash}: it never arrived, so nothing is paid out`,
        failureReason: 'DEPOSIT_REVERSED',
        at: command.at,
      },
    });
  }
  return events;
}

/**
 * The chain took a reversed deposit back in (credited again). After a payout, the loss booked for it is recovered; after
 * a refund, the ledger recovers it by itself; otherwise it is the deposit again, and goes the way of a late one (back to
 * its sender, the off-ramp having failed).
 */
function decideDepositBack(command: Extract<OfframpCommand, { type: 'recordDeposit' }>, state: WithInitiation<OfframpState>): OfframpEvent[] {
  const reversal = state.depositReversal!;
  if (reversal.afterPayout) {
    const { quote, tenant } = state.initiated;
    return [
      {
        type: 'offramp.deposit_restored',
        data: { ...depositMovement(state, command.depositId!, command.credit ?? reversal.credit + 1, tenant.environment, quote.chain), at: command.at },
      },
    ];
  }
  if (reversal.refunded) return [];
  return [{ type: 'offramp.deposit_received', data: depositData(command) }];
}

/** States an attempt does not leave: the partner's last word (a reversal after `paid` is recordPayoutReversed's). */
const FINAL_ATTEMPT_STATES: readonly PayoutState[] = ['paid', 'failed', 'rejected'];

/**
 * A live payout's attempt is about to be asked of its partner: a new attempt (the next number, and only when every
 * earlier one is known to have moved no Naira: nextPayoutStep's rule, which the process follows; this is the guard),
 * or the next ask of an `unknown` one, at the same partner under the same reference. Counted in `sends`.
 */
function decidePayoutSending(
  command: Extract<OfframpCommand, { type: 'recordPayoutSending' }>,
  state: WithInitiation<OfframpState>,
  step: OfframpStep,
): OfframpEvent[] {
  if (state.payout || step.kind !== 'payout') return [];
  const attempts = state.payoutAttempts ?? [];
  const known = attempts.find((candidate) => candidate.attempt === command.attempt);
  if (known) {
    sameAttempt(known, command);
    if (known.state !== 'unknown') refuse(`Payout attempt ${known.attempt} is ${known.state}: it is not sent again`);
  } else {
    if (command.attempt !== attempts.length + 1) refuse(`Payout attempt ${command.attempt} is not the next one (${attempts.length + 1})`);
    const next = nextPayoutStep(attempts, [command.provider], Number.MAX_SAFE_INTEGER);
    if (next.kind !== 'send') refuse(`A new payout attempt while attempt ${attempts.at(-1)?.attempt} may still pay`);
  }
  const { attempt, provider, reference, at } = command;
  const sends = (known?.sends ?? 0) + 1;
  return [
    {
      type: 'offramp.payout_attempted',
      data: { attempt, provider, reference, state: 'unknown', sends, reason: `ask ${sends} of the partner, recorded before it is made`, sending: true, at },
    },
  ];
}

/**
 * What the partner says of an attempt that was recorded as sent. It keeps its partner and reference; a final state is
 * never changed (a partner contradicting itself is for an operator). `rejected` (the partner refused it and has no
 * transfer under the reference) is believed only in answer to the very first ask: after an earlier ask that got no
 * answer, the refusal may be of a duplicate and "not found" a partner's lag, so it may have paid. `paid` pays the
 * off-ramp out; `reversed` (paid, then sent back, before the payment was recorded) holds it as a reversal does.
 */
function decidePayoutAttempt(
  command: Extract<OfframpCommand, { type: 'recordPayoutAttempt' }>,
  state: WithInitiation<OfframpState>,
  step: OfframpStep,
): OfframpEvent[] {
  if (state.payout || step.kind !== 'payout') return [];
  const { type: _type, at, send, ...answer } = command;
  const known = state.payoutAttempts?.find((candidate) => candidate.attempt === answer.attempt);
  if (!known) refuse(`Payout attempt ${answer.attempt} was never recorded as sent`);
  sameAttempt(known, answer);
  if (known.state === answer.state || FINAL_ATTEMPT_STATES.includes(known.state)) return [];
  if (answer.state === 'rejected' && (known.state !== 'unknown' || known.sends !== 1 || send !== 1))
    refuse(`Payout attempt ${known.attempt} may have paid (asked ${known.sends} times, now ${known.state}): a refusal does not prove it did not`);
  const attempt: PayoutAttemptRecord = { ...withoutAbsent(answer), sends: known.sends };
  const events: OfframpEvent[] = [{ type: 'offramp.payout_attempted', data: { ...attempt, at } }];
  if (attempt.state === 'paid') events.push({ type: 'offramp.paid_out', data: { payoutReference: attempt.reference, at } });
  if (attempt.state === 'reversed') events.push(payoutReversed(state, attempt, at));
  return events;
}

function sameAttempt(known: PayoutAttemptRecord, asked: { attempt: number; provider: string; reference: string }): void {
  if (known.provider !== asked.provider || known.reference !== asked.reference)
    refuse(`Payout attempt ${known.attempt} went to ${known.provider} as ${known.reference}, not ${asked.provider} as ${asked.reference}`);
}

/**
 * The bank sent back a payout of this off-ramp (the partner confirmed it): recorded once, whatever the off-ramp's
 * status (usually completed by then; a pending one stops), and held for an operator. Only an attempt that may have
 * paid can be reversed; any other reference changes nothing.
 */
function decidePayoutReversal(command: Extract<OfframpCommand, { type: 'recordPayoutReversed' }>, state: WithInitiation<OfframpState>): OfframpEvent[] {
  if (state.payoutReversal) return [];
  const attempt = state.payoutAttempts?.find((candidate) => candidate.reference === command.payoutReference);
  if (!attempt || attempt.state === 'failed' || attempt.state === 'rejected') return [];
  const reversed: PayoutAttemptRecord = { ...attempt, state: 'reversed', reason: 'the bank sent the payout back' };
  return [{ type: 'offramp.payout_attempted', data: { ...reversed, at: command.at } }, payoutReversed(state, reversed, command.at)];
}

function payoutReversed(state: WithInitiation<OfframpState>, attempt: PayoutAttemptRecord, at: string): OfframpEvent {
  return {
    type: 'offramp.payout_reversed',
    data: { provider: attempt.provider, payoutReference: attempt.reference, amount: state.initiated.quote.payoutAmount, at },
  };
}

function depositMovement(
  state: WithInitiation<OfframpState>,
  depositId: string,
  credit: number,
  environment: Tenant['environment'],
  chain: string,
): DepositMovement {
  const deposit = state.deposit!;
  return { depositId, credit, environment, chain, tokenSymbol: deposit.tokenSymbol ?? state.initiated.quote.tokenSymbol, amount: deposit.amount };
}

export const offrampDecider = { initialState: initialOfframpState, evolve: evolveOfframp, decide: decideOfframp };
