import { AppError } from '@ramp/contracts';
import { dec } from '@ramp/money';

/**
 * An operator's approval of a live ramp's money leaving the platform above a threshold (LIVE.md, "Treasury"): a live
 * off-ramp's payout or a live on-ramp's delivery worth more than LIVE_APPROVAL_ABOVE_NGN waits until an operator
 * approves it (`npm run ops -- approve <transactionId> --operator NAME`). Both facts are events of the transaction: that
 * it waits (`<kind>.approval_required`, with its amount and the threshold) and who approved it (`<kind>.approved`).
 */
export interface ApprovalState {
  required?: { amountNgn: string; thresholdNgn: string; at: string };
  approved?: { operator: string; at: string };
}

export type ApprovalCommand =
  { type: 'requireApproval'; amountNgn: string; thresholdNgn: string; at: string } | { type: 'approve'; operator: string; at: string };

/** Whether money worth `amountNgn` leaves only with an operator's approval: above the threshold (none: never). */
export function needsApproval(amountNgn: string, thresholdNgn: string | undefined): boolean {
  return thresholdNgn !== undefined && dec(amountNgn).gt(thresholdNgn);
}

/** Whether the step that moves the money waits: an approval was required and none was given yet. */
export const awaitsApproval = (approval: ApprovalState | undefined): boolean => approval?.required !== undefined && approval.approved === undefined;

/**
 * What an approval command decides, as the data of the kind's event (undefined: nothing new). Required once; approved
 * once, and only what waits for it: an approval of a transaction that does not wait is refused, so an operator never
 * approves the wrong id silently.
 */
export function decideApproval(
  command: ApprovalCommand,
  approval: ApprovalState | undefined,
): { required: ApprovalState['required'] } | { approved: ApprovalState['approved'] } | undefined {
  if (command.type === 'requireApproval') {
    if (approval?.required) return undefined;
    return { required: { amountNgn: command.amountNgn, thresholdNgn: command.thresholdNgn, at: command.at } };
  }
  if (approval?.approved) return undefined;
  if (!approval?.required) throw new AppError('TRANSACTION_STATE_CONFLICT', 'The transaction does not wait for an approval');
  const operator = command.operator.trim();
  if (operator === '') throw new AppError('INVALID_FIELD', 'operator: name who approves', 'operator');
  return { approved: { operator, at: command.at } };
}
