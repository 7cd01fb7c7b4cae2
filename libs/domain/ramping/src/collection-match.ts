import { dec } from '@ramp/money';

/** An on-ramp waiting for its payment into a partner's account (as recorded at its initiation). */
export interface CollectionCandidate {
  transactionId: string;
  organizationId: string;
  /** The exact Naira the on-ramp asked for, a decimal string. */
  amount: string;
  expiresAt: string;
  createdAt: string;
}

/** A payment into that account, as the partner's event tells it. */
export interface CollectionPaymentSeen {
  amount: string;
  paidAt: string;
}

/**
 * What a payment into a collection account is: one on-ramp's payment (`late` when it came after the account expired:
 * it is refunded as that on-ramp's), a payment to give back at once (no on-ramp can be told), or one to hold for an
 * operator (it fits on-ramps of more than one organization); `unknown` when the account has no on-ramp recorded.
 */
export type CollectionMatch =
  { kind: 'onramp'; transactionId: string; late: boolean } | { kind: 'refund'; reason: string } | { kind: 'hold'; reason: string } | { kind: 'unknown' };

/**
 * Matches a payment into a partner's account to the on-ramp it pays. A payer's account is the partner's customer's
 * and is reused: several on-ramps (of several organizations, when they share a payer's email) can wait on one
 * account, so the match is by amount and time.
 *
 * - When the account's unpaid on-ramps of the last day (`organizations`: those being initiated too) are more than one
 *   organization's, held for an operator: which organization's customer paid cannot be told, by amount or by time (a
 *   late payer of one could otherwise pay another's open on-ramp of the same amount).
 * - The open on-ramps (not expired when it was paid) asking exactly that amount: the oldest.
 * - None asks that amount: the one open on-ramp, which refunds it (PAYMENT_AMOUNT_MISMATCH); with several open, which
 *   one it was for cannot be told, so it is refunded at once and they stay open.
 * - None open: the on-ramp that expired last takes it as late and refunds it; with none waiting at all (every on-ramp
 *   of the account paid already), it is refunded at once.
 *
 * `accountKnown`: whether any on-ramp, paid or not, was ever given the account.
 */
export function matchCollectionPayment(
  payment: CollectionPaymentSeen,
  waiting: readonly CollectionCandidate[],
  accountKnown: boolean,
  organizations: ReadonlySet<string> = new Set(waiting.map((candidate) => candidate.organizationId)),
): CollectionMatch {
  if (organizations.size > 1)
    return { kind: 'hold', reason: `unpaid on-ramps of ${organizations.size} organizations wait on this account: which one was paid cannot be told` };
  const paidAt = Date.parse(payment.paidAt);
  const amount = dec(payment.amount);
  const byAge = [...waiting].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.transactionId.localeCompare(b.transactionId));
  const open = byAge.filter((candidate) => Date.parse(candidate.expiresAt) >= paidAt);
  const exact = open.filter((candidate) => dec(candidate.amount).eq(amount));
  if (exact.length > 0) return { kind: 'onramp', transactionId: exact[0]!.transactionId, late: false };
  if (open.length === 1) return { kind: 'onramp', transactionId: open[0]!.transactionId, late: false };
  if (open.length > 1) return { kind: 'refund', reason: `${open.length} open on-ramps wait on this account and none asks ${payment.amount} NGN` };
  const expired = byAge.filter((candidate) => Date.parse(candidate.expiresAt) < paidAt);
  const last = expired.sort((a, b) => Date.parse(b.expiresAt) - Date.parse(a.expiresAt))[0];
  if (last) return { kind: 'onramp', transactionId: last.transactionId, late: true };
  if (accountKnown) return { kind: 'refund', reason: 'every on-ramp of this account is paid already' };
  return { kind: 'unknown' };
}
