import { StepPending } from '@ramp/process-kit';
import { needsApproval, type ApprovalCommand, type ApprovalState } from '@ramp/ramping';
import type { Logger } from '@ramp/service-kit';

/** How often a step that waits for an approval looks again by itself (an approval wakes it at once). */
const APPROVAL_LOOK_MS = 60_000;

/**
 * The operator's approval of a live ramp's money leaving the platform above LIVE_APPROVAL_ABOVE_NGN (LIVE.md,
 * "Treasury"): a live off-ramp's payout, a live on-ramp's delivery. The step that moves the money asks it first.
 */
export class ApprovalGate {
  constructor(
    /** LIVE_APPROVAL_ABOVE_NGN: undefined, no approvals. */
    private readonly aboveNgn: string | undefined,
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {}

  /**
   * Undefined when the money may move (approved, or not above the threshold); the command that records that it waits
   * when it is above it and that was not recorded yet; StepPending while it waits (`npm run ops -- approve` applies the
   * approval and wakes the step). Once recorded, it waits whatever the threshold becomes meanwhile.
   */
  check(transactionId: string, approval: ApprovalState | undefined, amountNgn: string): ApprovalCommand | undefined {
    if (approval?.approved) return undefined;
    if (!approval?.required) {
      if (!needsApproval(amountNgn, this.aboveNgn)) return undefined;
      this.logger?.warn(
        { transactionId, amountNgn, thresholdNgn: this.aboveNgn },
        "a live transaction waits for an operator's approval: npm run ops -- held lists it, npm run ops -- approve approves it",
      );
      return { type: 'requireApproval', amountNgn, thresholdNgn: this.aboveNgn!, at: new Date().toISOString() };
    }
    throw new StepPending(`${transactionId} waits for an operator's approval (npm run ops -- approve ${transactionId} --operator NAME)`, APPROVAL_LOOK_MS);
  }
}

/** LIVE_APPROVAL_ABOVE_NGN as a threshold: empty is none; anything but a non-negative amount is refused at start. */
export function approvalThreshold(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (!/^\d+(\.\d{1,2})?$/.test(trimmed))
    throw new Error(`LIVE_APPROVAL_ABOVE_NGN must be an amount of Naira (such as 5000000), or empty for none; got ${JSON.stringify(value)}`);
  return trimmed;
}
