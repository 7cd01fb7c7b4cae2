import { AppError } from '@ramp/contracts';
import { dec } from '@ramp/money';

/**
 * An operator's approval of a live ramp's money leaving the platform above a threshold (LIVE.md, "Treasury"): a live
 * off-ramp's payout or a live on-ramp's delivery worth more than LIVE_APPROVAL_ABOVE_NGN waits until an operator
 * approves it (`npm run ops -- approve <transactionId> --operator NAME`) or declines it (`npm run ops -- reject …`).
 * Each fact is an event of the transaction: that it waits (`<kind>.approval_required`, with its amount and the
 * threshold), who approved it (`<kind>.approved`), or who declined it and why (`<kind>.approval_rejected`), after which
 * the kind's decider gives back what it took (or holds what it can no longer give back).
 */
export interface ApprovalState {
  required?: { amountNgn: string; thresholdNgn: string; at: string };
  approved?: { operator: string; at: string };
  rejected?: { operator: string; reason: string; at: string };
}

export type ApprovalCommand =
  | { type: 'requireApproval'; amountNgn: string; thresholdNgn: string; at: string }
  | { type: 'approve'; operator: string; at: string }
  | { type: 'reject'; operator: string; reason: string; at: string };

/** Whether money worth `amountNgn` leaves only with an operator's approval: above the threshold (none: never). */
export function needsApproval(amountNgn: string, thresholdNgn: string | undefined): boolean {
  return thresholdNgn !== undefined && dec(amountNgn).gt(thresholdNgn);
}

/** Whether the step that moves the money waits: an approval was required and none was given (nor refused) yet. */
export const awaitsApproval = (approval: ApprovalState | undefined): boolean =>
  approval?.required !== undefined && approval.approved === undefined && approval.rejected === undefined;

/**
 * What an approval command decides, as the data of the kind's event (undefined: nothing new). Required once; approved
 * or declined once, and only what waits for it: a decision on a transaction that does not wait is refused, so an
 * operator never approves or declines the wrong id silently, and the one decision taken is never turned round.
 */
export function decideApproval(
  command: ApprovalCommand,
  approval: ApprovalState | undefined,
):
  | { required: NonNullable<ApprovalState['required']> }
  | { approved: NonNullable<ApprovalState['approved']> }
  | { rejected: NonNullable<ApprovalState['rejected']> }
  | undefined {
  if (command.type === 'requireApproval') {
    if (approval?.required) return undefined;
    return { required: { amountNgn: command.amountNgn, thresholdNgn: command.thresholdNgn, at: command.at } };
  }
  // The same decision again is nothing new; the other one is refused.
  if (command.type === 'approve' ? approval?.approved : approval?.rejected) return undefined;
  if (approval?.approved) throw new AppError('TRANSACTION_STATE_CONFLICT', `${approval.approved.operator} approved the transaction already`);
  if (approval?.rejected) throw new AppError('TRANSACTION_STATE_CONFLICT', `${approval.rejected.operator} declined the transaction already`);
  if (!approval?.required) throw new AppError('TRANSACTION_STATE_CONFLICT', 'The transaction does not wait for an approval');
  const operator = command.operator.trim();
  if (operator === '') throw new AppError('INVALID_FIELD', `operator: name who ${command.type === 'approve' ? 'approves' : 'declines'}`, 'operator');
  if (command.type === 'approve') return { approved: { operator, at: command.at } };
  const reason = command.reason.trim();
  if (reason === '') throw new AppError('INVALID_FIELD', 'reason: say why the transaction is declined', 'reason');
  return { rejected: { operator, reason, at: command.at } };
}

/** What an integrator is told of a transaction an operator declined (the operator's own reason stays on its event). */
export const DECLINED_IN_REVIEW = 'An operator declined the transaction in review (it was above the approval threshold)';
