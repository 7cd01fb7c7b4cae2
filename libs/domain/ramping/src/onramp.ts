import { isInitiated, type VirtualAccount, type WithInitiation } from '@ramp/transactions';
import { AppError, type FailureReason, type OnrampQuote, type Tenant } from '@ramp/contracts';
import { dec } from '@ramp/money';
import { awaitsApproval, decideApproval, DECLINED_IN_REVIEW, type ApprovalCommand, type ApprovalState } from './approval';
import type { ComplianceHold, CounterpartyRole } from './screening';
import type { RampSettlement } from './onchain';

/**
 * An on-ramp as an event-sourced transaction, pure: the user pays NGN into a virtual account, CNGN is minted for it,
 * swapped to the quoted token unless that is CNGN, and delivered to the managed wallet or the destination address.
 * A payment that never comes fails the on-ramp when the account expires; a payment of the wrong amount, or a swap
 * that fails, is refunded to the payer before the on-ramp fails.
 */

export type OnrampEvent =
  | {
      type: 'onramp.initiated';
      data: {
        transactionId: string;
        tenant: Tenant;
        quote: OnrampQuote.Response;
        walletId: string | null;
        destinationAddress: string | null;
        virtualAccount: VirtualAccount;
        reference: string | null;
        callbackUrl: string | null;
        /** Where the CNGN's mint, the swap and a delivery to an address run (absent: simulated, as before part 2). */
        settlement?: RampSettlement;
        /**
         * A live on-ramp's collection: the bank partner whose dedicated account `virtualAccount` is, and its customer
         * (the payer). The payment's `payerReference` is then the partner's charge reference, which its refund names.
         */
        collection?: { provider: string; customerCode: string };
        at: string;
      };
    }
  | { type: 'onramp.payment_received'; data: { amount: string; payerReference: string; at: string } }
  | { type: 'onramp.cngn_minted'; data: { amount: string; transactionHash: string; at: string } }
  | { type: 'onramp.swapped'; data: { amount: string; transactionHash: string; at: string } }
  | { type: 'onramp.delivered'; data: { transactionHash: string; at: string } }
  /** A live delivery above LIVE_APPROVAL_ABOVE_NGN waits for an operator's approval (see ApprovalState). */
  | { type: 'onramp.approval_required'; data: { amountNgn: string; thresholdNgn: string; at: string } }
  | { type: 'onramp.approved'; data: { operator: string; at: string } }
  /** An operator declined it instead: followed by `onramp.failing` (DECLINED_IN_REVIEW), and the Naira is refunded. */
  | { type: 'onramp.approval_rejected'; data: { operator: string; reason: string; at: string } }
  /** Held for compliance: a counterparty is on the screening denylist. Nothing runs on its own from then on. */
  | { type: 'onramp.compliance_hold'; data: ComplianceHold }
  | { type: 'onramp.completed'; data: { at: string } }
  | { type: 'onramp.failing'; data: { errorMessage: string; failureReason?: FailureReason; at: string } }
  | { type: 'onramp.payment_refunded'; data: { refundReference: string; at: string } }
  | { type: 'onramp.failed'; data: { errorMessage: string; failureReason?: FailureReason; at: string } };

export type OnrampCommand =
  | { type: 'initiate'; data: Extract<OnrampEvent, { type: 'onramp.initiated' }>['data'] }
  | { type: 'recordPayment'; amount: string; payerReference: string; at: string }
  | { type: 'expirePayment'; at: string }
  | { type: 'recordMint'; amount: string; transactionHash: string; at: string }
  | { type: 'recordSwap'; at: string; ok: true; amount: string; transactionHash: string }
  | { type: 'recordSwap'; at: string; ok: false; reason: string }
  | { type: 'recordDelivery'; transactionHash: string; at: string }
  | { type: 'recordRefund'; refundReference: string; at: string }
  | ApprovalCommand
  /** A counterparty is on the screening denylist: held for compliance (see screening.ts), whatever comes next. */
  | { type: 'holdForCompliance'; address: string; role: CounterpartyRole; reason: string; at: string }
  | { type: 'fail'; reason: string; failureReason: FailureReason; at: string };

export interface OnrampState {
  initiated?: Extract<OnrampEvent, { type: 'onramp.initiated' }>['data'];
  status: 'pending' | 'completed' | 'failed';
  payment?: { amount: string; payerReference: string };
  mint?: { amount: string; transactionHash: string };
  swap?: { amount: string; transactionHash: string };
  delivery?: string;
  /** A live delivery above the approval threshold: that it waits, and who approved it. */
  approval?: ApprovalState;
  /** Held for compliance (screening): no step runs until an operator decides. */
  complianceHold?: ComplianceHold;
  failing?: string;
  /** Why it failed, for programs (absent on events recorded before failure reasons existed). */
  failureReason?: FailureReason;
  refund?: string;
  errorMessage?: string;
  createdAt?: string;
  updatedAt?: string;
}

export const initialOnrampState: OnrampState = { status: 'pending' };

export function evolveOnramp(state: OnrampState, event: OnrampEvent): OnrampState {
  const next: OnrampState = { ...state, updatedAt: event.data.at };
  switch (event.type) {
    case 'onramp.initiated':
      return { ...next, initiated: event.data, createdAt: event.data.at };
    case 'onramp.payment_received':
      return { ...next, payment: { amount: event.data.amount, payerReference: event.data.payerReference } };
    case 'onramp.cngn_minted':
      return { ...next, mint: { amount: event.data.amount, transactionHash: event.data.transactionHash } };
    case 'onramp.swapped':
      return { ...next, swap: { amount: event.data.amount, transactionHash: event.data.transactionHash } };
    case 'onramp.approval_required':
      return { ...next, approval: { ...state.approval, required: event.data } };
    case 'onramp.approved':
      return { ...next, approval: { ...state.approval, approved: event.data } };
    case 'onramp.approval_rejected':
      return { ...next, approval: { ...state.approval, rejected: event.data } };
    case 'onramp.compliance_hold':
      return { ...next, complianceHold: event.data };
    case 'onramp.delivered':
      return { ...next, delivery: event.data.transactionHash };
    case 'onramp.completed':
      return { ...next, status: 'completed' };
    case 'onramp.failing':
      return { ...next, failing: event.data.errorMessage, failureReason: event.data.failureReason };
    case 'onramp.payment_refunded':
      return { ...next, refund: event.data.refundReference };
    case 'onramp.failed':
      return { ...next, status: 'failed', errorMessage: event.data.errorMessage, failureReason: event.data.failureReason ?? state.failureReason };
  }
}

/**
 * A live on-ramp on its chain: its CNGN is the treasury's, already in the hot wallet (there is no issuer to mint for it
 * on a live chain), swapped on the chain's DEX; it has no mint step.
 */
export const fromTreasury = (state: OnrampState): boolean => state.initiated?.tenant.environment === 'live' && state.initiated.settlement === 'onchain';

/** The CNGN an on-ramp's swap spends: what was minted for it, or for a live one the same amount of the treasury's. */
export function cngnSpent(state: WithInitiation<OnrampState>): string {
  return state.mint?.amount ?? cngnToMint(state.initiated.quote);
}

/** The CNGN minted for an on-ramp's payment: the Naira paid less the fees (CNGN is 1:1 with NGN). */
export function cngnToMint(quote: Pick<OnrampQuote.Response, 'fiatAmount' | 'fees'>): string {
  return dec(quote.fiatAmount).sub(quote.fees.totalFee).toFixed();
}

export type OnrampStep =
  | { kind: 'awaitPayment'; until: string }
  | { kind: 'mintCngn' }
  | { kind: 'swapFromCngn' }
  | { kind: 'deliver' }
  | { kind: 'refundPayment' }
  | { kind: 'fail' }
  | { kind: 'none' };

export function nextOnrampStep(state: OnrampState): OnrampStep {
  // Held for compliance: nothing is delivered or refunded until an operator decides.
  if (state.complianceHold) return { kind: 'none' };
  // A payment that arrived after the on-ramp failed (an expired account) is still refunded.
  if (state.status === 'failed' && state.payment && state.refund === undefined) return { kind: 'refundPayment' };
  if (!isInitiated(state) || state.status !== 'pending') return { kind: 'none' };
  if (state.failing !== undefined) return state.payment && state.refund === undefined ? { kind: 'refundPayment' } : { kind: 'fail' };
  if (!state.payment) return { kind: 'awaitPayment', until: state.initiated.virtualAccount.expiresAt };
  if (!state.mint && !fromTreasury(state)) return { kind: 'mintCngn' };
  if (state.initiated.quote.tokenSymbol !== 'CNGN' && !state.swap) return { kind: 'swapFromCngn' };
  // Delivery completes the on-ramp in the same decision, so nothing comes after it.
  return state.delivery ? { kind: 'none' } : { kind: 'deliver' };
}

/** Decisions; a replayed command decides nothing new. */
export function decideOnramp(command: OnrampCommand, state: OnrampState): OnrampEvent[] {
  if (command.type === 'initiate') {
    if (isInitiated(state)) return [];
    if (!command.data.walletId === !command.data.destinationAddress)
      throw new AppError('INVALID_FIELD', 'walletId: give either walletId or destinationAddress', 'walletId');
    return [{ type: 'onramp.initiated', data: command.data }];
  }
  if (!isInitiated(state)) throw new AppError('TRANSACTION_NOT_FOUND', 'The transaction was not found');
  if (command.type === 'holdForCompliance') {
    if (state.complianceHold || state.status === 'completed') return [];
    const { address, role, reason, at } = command;
    return [{ type: 'onramp.compliance_hold', data: { address, role, reason, at } }];
  }
  const at = command.at;
  const step = nextOnrampStep(state);
  if (state.status !== 'pending') {
    if (command.type === 'recordPayment' && !state.payment && state.status === 'failed') {
      return [{ type: 'onramp.payment_received', data: { amount: command.amount, payerReference: command.payerReference, at } }];
    }
    if (command.type === 'recordRefund' && step.kind === 'refundPayment')
      return [{ type: 'onramp.payment_refunded', data: { refundReference: command.refundReference, at } }];
    return [];
  }
  switch (command.type) {
    case 'recordPayment': {
      if (state.payment) return [];
      const events: OnrampEvent[] = [{ type: 'onramp.payment_received', data: { amount: command.amount, payerReference: command.payerReference, at } }];
      const expected = state.initiated.virtualAccount.amount;
      if (!dec(command.amount).eq(dec(expected)) && state.failing === undefined) {
        events.push({
          type: 'onramp.failing',
          data: {
            errorMessage: `The payment was ${command.amount} NGN, not the expected ${expected}; it is refunded to the payer`,
            failureReason: 'PAYMENT_AMOUNT_MISMATCH',
            at,
          },
        });
      }
      return events;
    }
    case 'expirePayment':
      if (state.payment || state.failing !== undefined) return [];
      return [
        { type: 'onramp.failing', data: { errorMessage: 'No payment was received before the virtual account expired', failureReason: 'PAYMENT_EXPIRED', at } },
      ];
    case 'recordMint':
      return step.kind === 'mintCngn' ? [{ type: 'onramp.cngn_minted', data: { amount: command.amount, transactionHash: command.transactionHash, at } }] : [];
    case 'recordSwap':
      if (step.kind !== 'swapFromCngn') return [];
      // The treasury's CNGN is not spent while the on-ramp waits for an operator's approval, whatever asks.
      if (command.ok && awaitsApproval(state.approval))
        throw new AppError('TRANSACTION_STATE_CONFLICT', "The on-ramp waits for an operator's approval (npm run ops -- approve)");
      return command.ok
        ? [{ type: 'onramp.swapped', data: { amount: command.amount, transactionHash: command.transactionHash, at } }]
        : [{ type: 'onramp.failing', data: { errorMessage: `The swap from CNGN failed: ${command.reason}`, failureReason: 'SWAP_FAILED', at } }];
    case 'recordDelivery':
      if (step.kind === 'deliver' && awaitsApproval(state.approval))
        throw new AppError('TRANSACTION_STATE_CONFLICT', "The on-ramp waits for an operator's approval (npm run ops -- approve)");
      return step.kind === 'deliver'
        ? [
            { type: 'onramp.delivered', data: { transactionHash: command.transactionHash, at } },
            { type: 'onramp.completed', data: { at } },
          ]
        : [];
    case 'recordRefund':
      return step.kind === 'refundPayment' ? [{ type: 'onramp.payment_refunded', data: { refundReference: command.refundReference, at } }] : [];
    case 'requireApproval':
    case 'approve':
    case 'reject': {
      // The same decision again is nothing new, whatever the on-ramp has done since (refunded, failed).
      if (command.type === 'approve' ? state.approval?.approved : command.type === 'reject' && state.approval?.rejected) return [];
      // Declining gives the Naira back, which is right only while nothing of the treasury's was spent for it: once its
      // CNGN was swapped (an approval first required at the delivery), it can only be approved.
      if (command.type === 'reject' && state.swap)
        throw new AppError('TRANSACTION_STATE_CONFLICT', "The treasury's CNGN was swapped for this on-ramp already: it can only be approved");
      // Only what spends the treasury's funds waits for an approval: the swap of its CNGN, or the delivery.
      if (step.kind !== 'deliver' && step.kind !== 'swapFromCngn') {
        if (command.type !== 'requireApproval') throw new AppError('TRANSACTION_STATE_CONFLICT', 'The on-ramp does not wait for an approval now');
        return [];
      }
      const decided = decideApproval(command, state.approval);
      if (!decided) return [];
      if ('required' in decided) return [{ type: 'onramp.approval_required', data: decided.required }];
      if ('approved' in decided) return [{ type: 'onramp.approved', data: decided.approved }];
      // Declined: nothing of the treasury's was spent yet (each step that spends it waits, and one swapped already is
      // refused above), so the Naira goes back.
      return [
        { type: 'onramp.approval_rejected', data: decided.rejected },
        { type: 'onramp.failing', data: { errorMessage: `${DECLINED_IN_REVIEW}: the Naira is refunded`, failureReason: 'DECLINED_IN_REVIEW', at } },
      ];
    }
    case 'fail':
      if (state.delivery) throw new AppError('TRANSACTION_STATE_CONFLICT', 'The crypto was delivered: the on-ramp can no longer fail');
      if (state.failing !== undefined)
        return step.kind === 'fail'
          ? [{ type: 'onramp.failed', data: { errorMessage: state.failing, failureReason: state.failureReason ?? 'TRANSACTION_FAILED', at } }]
          : [];
      return [{ type: 'onramp.failing', data: { errorMessage: command.reason, failureReason: command.failureReason, at } }];
  }
}

export const onrampDecider = { initialState: initialOnrampState, evolve: evolveOnramp, decide: decideOnramp };
