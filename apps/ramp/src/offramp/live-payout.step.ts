import { nextPayoutStep, payoutReference, type PayoutAttempt } from '@ramp/banking';
import { dec } from '@ramp/money';
import { StepPending, type WithInitiation } from '@ramp/process-kit';
import type { LivePayouts, PayoutResult } from '@ramp/providers';
import type { OfframpCommand, OfframpState, PayoutAttemptRecord } from '@ramp/ramping';
import type { Logger } from '@ramp/service-kit';

/** Attempts of one off-ramp's payout, across its partners, before it fails (PAYOUT_REJECTED). */
export const MAX_PAYOUT_ATTEMPTS = 3;

/** What happened to live payouts, for the metric `ramp_payouts_total{provider,outcome}`. */
export type PayoutOutcome = 'sent' | 'paid' | 'failed' | 'rejected' | 'held' | 'reversed' | 'waiting_for_balance' | 'no_partner';

export interface LivePayoutOptions {
  /** PAYOUT_VERIFY_MS: how long a payout waits for its partner's event before asking the partner itself. */
  verifyMs: number;
  count(provider: string, outcome: PayoutOutcome): void;
  logger?: Pick<Logger, 'warn' | 'error'>;
}

/**
 * A live off-ramp's payout step, one move per run (nextPayoutStep over the recorded attempts):
 *
 * - a new attempt: the partner's balance is looked at first (too low: the payout waits, never fails, and the metric
 *   says so for an operator to top up), then the attempt is recorded as `unknown` before anything is sent, so that a
 *   crash, a restart or a breaker that opens meanwhile can never send the same attempt to another partner;
 * - an `unknown` attempt is sent (again) to its partner under its reference: the partner refuses a duplicate, so it
 *   pays once however often it is sent, and its answer is recorded;
 * - a `pending` (or `held`) attempt waits for the partner's event, which wakes the job, or for PAYOUT_VERIFY_MS, and
 *   is then looked up at the partner (GET /transfer/verify/{reference}): the partner's own answer, never the event's
 *   body, is what is recorded;
 * - when every attempt is known to have moved no Naira and none is left, the payout is rejected (the off-ramp fails
 *   and gives the tokens back).
 *
 * Nothing here waits in the job's slot: a step with nothing new ends StepPending.
 */
export class LivePayoutStep {
  constructor(
    private readonly payouts: LivePayouts,
    private readonly options: LivePayoutOptions,
  ) {}

  async perform(transactionId: string, state: WithInitiation<OfframpState>): Promise<OfframpCommand> {
    const at = new Date().toISOString();
    const attempts = state.payoutAttempts ?? [];
    const { quote } = state.initiated;
    const decision = nextPayoutStep(attempts, this.payouts.available(), MAX_PAYOUT_ATTEMPTS);
    switch (decision.kind) {
      case 'exhausted': {
        if (attempts.length < MAX_PAYOUT_ATTEMPTS) {
          this.options.count('all', 'no_partner');
          throw new StepPending('every payout partner is out of rotation: the payout waits for one to answer again', this.options.verifyMs);
        }
        const last = attempts.at(-1);
        return { type: 'recordPayout', ok: false, reason: last?.reason ?? 'no bank partner could pay it', at };
      }
      case 'send': {
        const balance = await this.payouts.balance(decision.provider);
        if (balance === undefined) throw new StepPending(`${decision.provider} did not say its balance: the payout waits`, this.options.verifyMs);
        if (dec(balance).lt(quote.payoutAmount)) {
          this.options.count(decision.provider, 'waiting_for_balance');
          this.options.logger?.warn(
            { transactionId, provider: decision.provider, balance, payoutAmount: quote.payoutAmount },
            "a payout waits: the bank partner's balance does not cover it; an operator must top it up",
          );
          throw new StepPending(`${decision.provider}'s balance (${balance} NGN) does not cover ${quote.payoutAmount} NGN`, this.options.verifyMs);
        }
        return {
          type: 'recordPayoutAttempt',
          attempt: decision.attempt,
          provider: decision.provider,
          reference: payoutReference(transactionId, decision.attempt),
          state: 'unknown',
          reason: 'recorded before it is sent',
          at,
        };
      }
      case 'resend': {
        const known = this.recorded(attempts, decision.attempt);
        const result = await this.payouts.send(known.provider, {
          reference: known.reference,
          bankCode: quote.bankAccount.bankCode,
          accountNumber: quote.bankAccount.accountNumber,
          accountName: quote.bankAccount.accountName,
          amount: quote.payoutAmount,
          narration: `Off-ramp ${state.initiated.reference ?? transactionId}`,
        });
        if (result.state !== 'unknown') this.options.count(known.provider, result.state === 'pending' ? 'sent' : result.state);
        return this.news(transactionId, known, result, at, this.options.verifyMs);
      }
      case 'wait':
      case 'hold': {
        const known = this.recorded(attempts, decision.attempt);
        // For the quoted amount: a transfer under the reference for any other amount is held, never taken as paid.
        const result = await this.payouts.verify(known.provider, known.reference, quote.payoutAmount);
        if (result.state !== known.state && result.state !== 'unknown' && result.state !== 'pending') this.options.count(known.provider, result.state);
        if (decision.kind === 'hold' && result.state === known.state) {
          this.options.logger?.error(
            { transactionId, provider: known.provider, reference: known.reference, state: known.state, reason: known.reason },
            'a payout is held at its bank partner: nothing more is sent until an operator settles it there',
          );
        }
        // Held: looked at again ten times less often, for an operator may settle it at the partner.
        return this.news(transactionId, known, result, at, decision.kind === 'hold' ? this.options.verifyMs * 10 : this.options.verifyMs);
      }
      case 'done':
        return { type: 'recordPayoutAttempt', ...this.recorded(attempts, decision.attempt), at };
    }
  }

  private recorded(attempts: readonly PayoutAttemptRecord[], attempt: PayoutAttempt): PayoutAttemptRecord {
    return attempts.find((candidate) => candidate.reference === attempt.reference)!;
  }

  /** The partner's answer as a command when it says something new of the attempt; otherwise the step waits. */
  private news(transactionId: string, known: PayoutAttemptRecord, result: PayoutResult, at: string, retryInMs: number): OfframpCommand {
    if (result.state === 'unknown' || result.state === known.state) {
      throw new StepPending(`payout ${known.reference} of ${transactionId} at ${known.provider}: ${result.reason ?? result.state}`, retryInMs);
    }
    return {
      type: 'recordPayoutAttempt',
      attempt: known.attempt,
      provider: known.provider,
      reference: known.reference,
      state: result.state,
      ...(result.reason !== undefined && { reason: result.reason }),
      ...(result.partnerReference !== undefined && { partnerReference: result.partnerReference }),
      at,
    };
  }
}
