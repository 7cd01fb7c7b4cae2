/**
 * A bank payout's life at a partner, and the rule that one off-ramp never has two live payouts: pure, so that the
 * process that pays and the tests share one reading of it.
 */

/**
 * What a partner says of a transfer: `pending` (accepted, not final), `paid`, `failed` (final: no money moved),
 * `reversed` (paid, then the bank sent the money back), `rejected` (refused when first asked: it never existed),
 * `unknown` (no answer, a refusal after a lost answer, or not found when looked up: it may exist), `held` (stopped where
 * only a person can move it, such as Paystack's `otp`: it may still be paid, so nothing else is sent).
 */
export type PayoutState = 'pending' | 'paid' | 'failed' | 'reversed' | 'rejected' | 'unknown' | 'held';

export interface PayoutAttempt {
  provider: string;
  reference: string;
  state: PayoutState;
}

/**
 * A transfer's reference at the partner: derived from the transaction and the attempt's number, so that asking again
 * after a lost answer repeats the same reference (the partner refuses a duplicate: a retry can never pay twice) and
 * only a new attempt, after the last one is known to have moved no money, has a new one. Paystack's rule: 16 to 50
 * characters, lowercase letters, digits, `-` and `_`.
 */
export function payoutReference(transactionId: string, attempt: number): string {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be 1 or more, got ${attempt}`);
  const reference = `${transactionId.toLowerCase().replace(/[^a-z0-9_-]/g, '_')}-payout-${attempt}`;
  if (reference.length < 16 || reference.length > 50) throw new RangeError(`a payout reference must be 16 to 50 characters: ${reference}`);
  return reference;
}

/** A payoutReference: the transaction's id lowercased, then the attempt's number. */
const PAYOUT_REFERENCE = /^txn_([0-9a-z]{26})-payout-([1-9]\d*)$/;

/** The transaction a partner's reference is the payout of (payoutReference read back), or undefined for one the platform did not make. */
export function transactionOfPayoutReference(reference: string | null | undefined): string | undefined {
  const match = reference ? PAYOUT_REFERENCE.exec(reference) : null;
  return match ? `txn_${match[1]!.toUpperCase()}` : undefined;
}

/** Paystack's transfer status (`data.status` of a transfer, its verify, its events) as a PayoutState. */
export function paystackPayoutState(status: string): PayoutState {
  switch (status) {
    case 'success':
      return 'paid';
    case 'reversed':
      return 'reversed';
    case 'failed':
    case 'abandoned':
    case 'rejected':
    case 'blocked':
      return 'failed';
    // Waiting for an OTP (transfer OTP must be off for the integration): someone may still finalise it from the
    // dashboard, so it is not a failure another provider may pay over; an operator decides.
    case 'otp':
      return 'held';
    default:
      // pending, received, queued, processing: accepted and on its way.
      return 'pending';
  }
}

/** What the process does next about an off-ramp's payout, given its attempts so far. */
export type PayoutDecision =
  | { kind: 'wait'; attempt: PayoutAttempt }
  | { kind: 'resend'; attempt: PayoutAttempt }
  | { kind: 'done'; attempt: PayoutAttempt }
  | { kind: 'hold'; attempt: PayoutAttempt }
  | { kind: 'send'; provider: string; attempt: number }
  | { kind: 'exhausted' };

/**
 * The payout rule: a new transfer starts only when every earlier one is known to have moved no money (`failed`, or
 * `rejected` when first asked), and then at the next provider in `providers` (the configured order, without those out
 * of rotation) after the last one tried, or the same one when it is the only one. An `unknown` attempt is sent again to
 * the same provider under the same reference (the partner refuses a duplicate, so this pays nothing twice) until the
 * partner says what became of it; a `pending` one is waited for; `paid` is the outcome; `reversed` and `held` stop for an
 * operator.
 */
export function nextPayoutStep(attempts: readonly PayoutAttempt[], providers: readonly string[], maxAttempts = 3): PayoutDecision {
  const open = attempts.find((attempt) => attempt.state !== 'failed' && attempt.state !== 'rejected');
  if (open?.state === 'unknown') return { kind: 'resend', attempt: open };
  if (open?.state === 'pending') return { kind: 'wait', attempt: open };
  if (open?.state === 'paid') return { kind: 'done', attempt: open };
  if (open) return { kind: 'hold', attempt: open };
  if (attempts.length >= maxAttempts || providers.length === 0) return { kind: 'exhausted' };
  const last = attempts.at(-1);
  const after = last ? providers.indexOf(last.provider) : -1;
  const provider = providers[(after + 1) % providers.length]!;
  return { kind: 'send', provider, attempt: attempts.length + 1 };
}
