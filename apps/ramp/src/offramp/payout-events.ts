import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { transactionOfPayoutReference } from '@ramp/banking';
import { JobQueue } from '@ramp/process-kit';
import { isInitiated } from '@ramp/transactions';
import { LOGGER, type Logger } from '@ramp/service-kit';
import { PartnerEvents, type PartnerEvent, type PartnerEventOutcome } from '../partners/partner-events';
import { OfframpService } from './offramp.service';

/**
 * What a partner's transfer event does. Its body is never taken as the outcome: it wakes the off-ramp's payout step,
 * which asks the partner itself (LivePayoutStep), so a forged or stale event can at most make the platform look
 * sooner. A reversal (`transfer.reversed`) of an attempt that may have paid (usually paid already, when no step waits
 * for it any more) is looked up at the partner and, when the partner confirms it, recorded on the off-ramp (held for an
 * operator); not confirmed yet, the event is tried again later. An event for no off-ramp, or for an attempt not
 * recorded at that partner (yet), is `unmatched`: tried again, then kept and reported.
 */
@Injectable()
export class PayoutEvents implements OnModuleInit {
  constructor(
    @Inject(PartnerEvents) private readonly events: PartnerEvents,
    @Inject(OfframpService) private readonly offramps: OfframpService,
    @Inject(JobQueue) private readonly jobs: JobQueue,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    const handler = (event: PartnerEvent, client: PoolClient) => this.onTransferEvent(event, client);
    // Paystack: transfer.success, transfer.failed, transfer.reversed; Flutterwave: transfer.completed (either outcome).
    for (const name of ['transfer.success', 'transfer.failed', 'transfer.reversed', 'transfer.completed']) this.events.handle(name, handler);
  }

  async onTransferEvent(event: PartnerEvent, client: PoolClient): Promise<PartnerEventOutcome> {
    const transactionId = transactionOfPayoutReference(event.reference);
    if (!transactionId) return 'unmatched';
    const process = this.offramps.process;
    const state = await process.load(client, transactionId);
    if (!isInitiated(state)) return 'unmatched';
    const attempt = state.payoutAttempts?.find((candidate) => candidate.reference === event.reference && candidate.provider === event.provider);
    if (!attempt) return 'unmatched';
    if (event.event === 'transfer.reversed' && attempt.state !== 'failed' && attempt.state !== 'rejected') {
      // Already recorded (a resend of the event, another replica): nothing more to do, nothing logged twice.
      if (state.payoutReversal) return 'applied';
      await this.recordReversal(transactionId, state.initiated.tenant, attempt.provider, attempt.reference, state.initiated.quote.payoutAmount, event.id);
      return 'applied';
    }
    await this.jobs.wake(client, [process.streamOf(transactionId)]);
    return 'applied';
  }

  /**
   * A reversal of the paid payout, as the partner itself says it (its event only made us ask): recorded once on the
   * off-ramp, which is then held for an operator. Not confirmed (yet): tried again later by the partner events' retry.
   */
  private async recordReversal(
    transactionId: string,
    tenant: Parameters<OfframpService['process']['apply']>[1],
    provider: string,
    reference: string,
    amount: string,
    partnerEventId: string,
  ): Promise<void> {
    const payout = this.offramps.payouts.of(tenant.environment);
    if (payout.kind !== 'live') throw new Error(`a reversal of ${reference} for a ${tenant.environment} off-ramp: only live payouts are reversed by a partner`);
    const verified = await payout.payouts.verify(provider, reference, amount);
    if (verified.state !== 'reversed')
      throw new Error(`${provider} sent transfer.reversed for ${reference} but says it is ${verified.state}: looked at again later`);
    const state = await this.offramps.process.apply(
      transactionId,
      tenant,
      { type: 'recordPayoutReversed', payoutReference: reference, at: new Date().toISOString() },
      { causationId: `partner-event:${partnerEventId}`, actor: `system:${provider}` },
    );
    if (state.payoutReversal) {
      this.offramps.payoutsCounted.inc({ provider, outcome: 'reversed' });
      this.logger.error(
        { transactionId, provider, reference, amount: state.payoutReversal.amount },
        'the bank sent a paid payout back: the Naira is in the partner balance again, and the off-ramp is held for an operator',
      );
    }
  }
}
