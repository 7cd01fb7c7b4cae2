import { nextPayoutStep, payoutReference, type PayoutAttempt } from '@ramp/banking';
import { dec } from '@ramp/money';
import { StepPending, type Job, type WithInitiation } from '@ramp/process-kit';
import type { LivePayouts, PayoutResult } from '@ramp/providers';
import { swappedLive, type OfframpCommand, type OfframpState, type PayoutAttemptRecord } from '@ramp/ramping';
import type { Logger } from '@ramp/service-kit';

/** Attempts of one off-ramp's payout, across its partners, before it fails (PAYOUT_REJECTED). */
export const MAX_PAYOUT_ATTEMPTS = 3;

/** What happened to live payouts, for the metric `ramp_payouts_total{provider,outcome}`. */
export type PayoutOutcome =
  | 'sent'
  | 'paid'
  | 'failed'
  | 'rejected'
  | 'held'
  | 'reversed'
  | 'unresolved'
  | 'waiting_for_balance'
  | 'no_partner'
  /** Every attempt failed after the off-ramp's swap on a live chain: held for an operator (offramp.payout_held). */
  | 'failed_after_swap';

export interface LivePayoutOptions {
  /** PAYOUT_VERIFY_MS: how long a payout waits for its partner's event before asking the partner itself. */
  verifyMs: number;
  count(provider: string, outcome: PayoutOutcome): void;
  logger?: Pick<Logger, 'warn' | 'error'>;
}

/** The run of a live payout's step: the off-ramp as read, the job that runs it, and the stream's version. */
export interface LivePayoutRun {
  transactionId: string;
  state: WithInitiation<OfframpState>;
  job?: Pick<Job, 'decided_at_version' | 'attempts'>;
  version?: number;
}

/** Longest pause between two asks of a partner that does not answer. */
const MAX_RETRY_MS = 3_600_000;

/**
 * A live off-ramp's payout step, one move per run (nextPayoutStep over the recorded attempts):
 *
 * - a new attempt: the partner's balance is looked at first (too low: the payout waits, never fails, and the metric
 *   says so for an operator to top it up); then the ask is recorded (`recordPayoutSending`) before anything is sent,
 *   so that a crash, a restart or a breaker that opens meanwhile can never send the same attempt to another partner;
 * - an ask is made only in the first run of the job that its record scheduled (the record is the stream's last event,
 *   the job was decided at it and never claimed before). Any other run of an `unknown` attempt (the ask got no answer,
 *   the replica died mid-ask, its lease ran out) records the next ask first. So each ask is counted before it is made,
 *   and the decider believes a refusal only of the very first;
 * - an ask goes to the attempt's partner under its reference: the partner refuses a duplicate, so it pays once however
 *   often it is asked, and its answer is recorded; no answer waits PAYOUT_VERIFY_MS, doubling with each ask;
 * - a `pending` (or `held`) attempt waits for the partner's event, which wakes the job, or for PAYOUT_VERIFY_MS, and
 *   is then looked up at the partner for the quoted amount: the partner's own answer, never the event's body, is what
 *   is recorded;
 * - when every attempt is known to have moved no Naira and none is left, the payout is rejected: the off-ramp fails
 *   and gives the tokens back, or, swapped on a live chain (its tokens are CNGN by then), is held for an operator.
 *
 * Nothing here waits in the job's slot: a step with nothing new ends StepPending.
 */
export class LivePayoutStep {
  constructor(
    private readonly payouts: LivePayouts,
    private readonly options: LivePayoutOptions,
  ) {}

  async perform(run: LivePayoutRun): Promise<OfframpCommand> {
    const { transactionId, state } = run;
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
        if (swappedLive(state)) {
          // Its token was swapped to CNGN on chain: the off-ramp is held for an operator, not refunded (offramp.payout_held).
          this.options.count(last?.provider ?? 'all', 'failed_after_swap');
          this.options.logger?.error(
            { transactionId, attempts: attempts.length, reason: last?.reason },
            'every payout of a live off-ramp failed after its swap on chain: it is held for an operator (npm run ops -- held)',
          );
        }
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
        const reference = payoutReference(transactionId, decision.attempt);
        return { type: 'recordPayoutSending', attempt: decision.attempt, provider: decision.provider, reference, at };
      }
      case 'resend': {
        const known = this.recorded(attempts, decision.attempt);
        this.stillConfigured(transactionId, known);
        if (!this.mayAsk(run, known)) {
          if (run.job !== undefined && run.version !== undefined && run.job.decided_at_version < run.version) {
            // An older job of the stream (another event came since, with a job of its own, which makes the next move):
            // it ends here, recording nothing (the same answer again decides nothing, and the job is removed).
            return { ...this.answer(known, known.state, at), send: known.sends };
          }
          return { type: 'recordPayoutSending', attempt: known.attempt, provider: known.provider, reference: known.reference, at };
        }
        const result = await this.payouts.send(known.provider, {
          reference: known.reference,
          bankCode: quote.bankAccount.bankCode,
          accountNumber: quote.bankAccount.accountNumber,
          accountName: quote.bankAccount.accountName,
          amount: quote.payoutAmount,
          narration: `Off-ramp ${state.initiated.reference ?? transactionId}`,
        });
        if (result.state === 'rejected' && known.sends > 1) {
          // Refused, and not found: after an earlier ask that got no answer, that proves nothing (a duplicate refused,
          // a partner's lag). Asked again later; an operator is told if it lasts.
          this.options.count(known.provider, 'unresolved');
          this.options.logger?.warn(
            { transactionId, provider: known.provider, reference: known.reference, sends: known.sends, reason: result.reason },
            'a payout was refused after an earlier ask got no answer: it may have paid, so it is asked again later, never sent elsewhere',
          );
          throw new StepPending(`payout ${known.reference}: refused after an unanswered ask (${result.reason})`, this.retryMs(known.sends));
        }
        if (result.state !== 'unknown') this.options.count(known.provider, result.state === 'pending' ? 'sent' : result.state);
        return this.news(transactionId, known, result, known.sends, at, this.retryMs(known.sends));
      }
      case 'wait':
      case 'hold': {
        const known = this.recorded(attempts, decision.attempt);
        this.stillConfigured(transactionId, known);
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
        return this.news(transactionId, known, result, known.sends, at, decision.kind === 'hold' ? this.options.verifyMs * 10 : this.options.verifyMs);
      }
      case 'done': {
        const known = this.recorded(attempts, decision.attempt);
        return { ...this.answer(known, 'paid', at), send: known.sends };
      }
    }
  }

  /**
   * Whether this run may ask the partner: it is the first run of the job that the ask's record scheduled (the record is
   * still the stream's last event). Without the job (a caller that does not say), never: the ask is recorded again.
   */
  private mayAsk(run: LivePayoutRun, known: PayoutAttemptRecord): boolean {
    return run.state.payoutToSend === known.attempt && run.job?.attempts === 1 && run.job.decided_at_version === run.version;
  }

  /**
   * An open attempt stays with its partner: one taken out of PAYOUT_PROVIDERS (or without its key now) cannot be asked,
   * and no other may be. The payout waits, counted (`no_partner`) and logged for an operator, who puts the partner back.
   */
  private stillConfigured(transactionId: string, known: PayoutAttemptRecord): void {
    if (this.payouts.has(known.provider)) return;
    this.options.count(known.provider, 'no_partner');
    this.options.logger?.error(
      { transactionId, provider: known.provider, reference: known.reference, state: known.state },
      'a payout attempt is open at a bank partner that is no longer configured (PAYOUT_PROVIDERS): it waits; put the partner back',
    );
    throw new StepPending(`payout ${known.reference}: ${known.provider} is not configured`, this.options.verifyMs * 10);
  }

  /** The pause before an unanswered attempt is asked again: PAYOUT_VERIFY_MS, doubling with each ask, at most an hour. */
  private retryMs(sends: number): number {
    return Math.min(this.options.verifyMs * 2 ** Math.min(Math.max(sends - 1, 0), 12), MAX_RETRY_MS);
  }

  private answer(known: PayoutAttemptRecord, state: PayoutAttemptRecord['state'], at: string) {
    return { type: 'recordPayoutAttempt' as const, attempt: known.attempt, provider: known.provider, reference: known.reference, state, at };
  }

  private recorded(attempts: readonly PayoutAttemptRecord[], attempt: PayoutAttempt): PayoutAttemptRecord {
    return attempts.find((candidate) => candidate.reference === attempt.reference)!;
  }

  /** The partner's answer as a command when it says something new of the attempt; otherwise the step waits. */
  private news(transactionId: string, known: PayoutAttemptRecord, result: PayoutResult, send: number, at: string, retryInMs: number): OfframpCommand {
    if (result.state === 'unknown' || result.state === known.state) {
      throw new StepPending(`payout ${known.reference} of ${transactionId} at ${known.provider}: ${result.reason ?? result.state}`, retryInMs);
    }
    return {
      ...this.answer(known, result.state, at),
      send,
      ...(result.reason !== undefined && { reason: result.reason }),
      ...(result.partnerReference !== undefined && { partnerReference: result.partnerReference }),
    };
  }
}
