import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';
import { dec } from '@ramp/money';
import type { CollectionPayment, LiveCollections } from '@ramp/providers';
import { isInitiated } from '@ramp/transactions';
import { LOGGER, PG_POOL, type Logger } from '@ramp/service-kit';
import { PartnerEvents, type PartnerEvent, type PartnerEventOutcome } from '../partners/partner-events';
import { OnrampCollectionAccounts, type RecordedMatch } from './onramp-collections';
import { OnrampService } from './onramp.service';

/**
 * What a partner's `charge.success` does: a payment into a payer's dedicated account (the partner reads it from the
 * event: its account, amount and charge reference) is matched once to the on-ramp it pays (OnrampCollectionAccounts),
 * which records it: the exact amount goes on to the CNGN, another amount or a late one is refunded by the on-ramp's
 * own refund step and it fails (PAYMENT_AMOUNT_MISMATCH, PAYMENT_EXPIRED), as in the sandbox. A payment no on-ramp can
 * take is refunded at once; one that fits on-ramps of several organizations is held for an operator; one into an
 * account no on-ramp was given is `unmatched` (tried again, then kept and reported). Processing the event again acts
 * on the match recorded the first time, and each effect is idempotent.
 */
@Injectable()
export class CollectionEvents implements OnModuleInit {
  constructor(
    @Inject(PartnerEvents) private readonly events: PartnerEvents,
    @Inject(OnrampService) private readonly onramps: OnrampService,
    @Inject(OnrampCollectionAccounts) private readonly accounts: OnrampCollectionAccounts,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.events.handle('charge.success', (event) => this.onCharge(event));
    this.events.handle('refund.failed', (event) => this.onRefundFailed(event));
  }

  /**
   * A refund the partner accepted (pending, processing: recorded as refunded) and then failed: nothing was given back.
   * The payment's record says so (`refund` rejected, listed by `npm run ops -- held`, which an operator refunds again
   * with `ops -- refund-collection`); counted (`refund_failed`, alerted) and logged with the charge. The on-ramp
   * itself still shows its refund.
   */
  async onRefundFailed(event: PartnerEvent): Promise<PartnerEventOutcome> {
    const data = event.body.data;
    const transaction = data.transaction as Record<string, unknown> | undefined;
    const charge = data.transaction_reference ?? transaction?.reference ?? null;
    if (typeof charge === 'string') await this.accounts.recordRefund(event.provider, charge, 'rejected');
    this.accounts.counted.inc({ provider: event.provider, outcome: 'refund_failed' });
    this.logger.error(
      { provider: event.provider, chargeReference: charge, refundId: data.id ?? null, amount: data.amount ?? null, partnerEventId: event.id },
      'a refund the bank partner had accepted failed: nothing was given back, and an operator must refund the charge again at the partner',
    );
    return 'applied';
  }

  async onCharge(event: PartnerEvent): Promise<PartnerEventOutcome> {
    const live = this.accounts.partners;
    const provider = live?.provider(event.provider);
    // A partner not collecting (COLLECTION_PROVIDERS), or a charge that is not a payment into a dedicated account.
    const payment = provider?.paymentOf(event.body);
    if (!live || !payment) return 'unmatched';
    const match = await this.accounts.match(event.provider, payment);
    switch (match.kind) {
      case 'unknown':
        this.accounts.counted.inc({ provider: event.provider, outcome: 'unknown_account' });
        return 'unmatched';
      case 'onramp':
        await this.pay(event, payment, match);
        return 'applied';
      case 'refund':
        await this.refundAtOnce(live, event.provider, payment, match);
        return 'applied';
      case 'hold':
        this.accounts.counted.inc({ provider: event.provider, outcome: 'held' });
        this.logger.error(
          { provider: event.provider, reference: payment.reference, amount: payment.amount, accountNumber: payment.accountNumber, reason: match.reason },
          "a payment into a payer's account fits on-ramps of several organizations: held at the partner for an operator to match or refund",
        );
        return 'applied';
    }
  }

  /** Records the payment on its on-ramp (a late one after its expiry, so that the on-ramp refunds it). */
  private async pay(event: PartnerEvent, payment: CollectionPayment, match: Extract<RecordedMatch, { kind: 'onramp' }>): Promise<void> {
    const { process } = this.onramps;
    const state = await process.load(this.pool, match.transactionId);
    // Matching joins the on-ramp's recorded initiation, so this is a defect: the event fails and is retried, then parked.
    if (!isInitiated(state)) throw new Error(`the payment ${payment.reference} was matched to ${match.transactionId}, which has no initiation`);
    const { tenant } = state.initiated;
    const cause = { causationId: `partner-event:${event.id}`, actor: `system:${event.provider}` };
    const at = new Date().toISOString();
    if (match.late) await process.apply(match.transactionId, tenant, { type: 'expirePayment', at }, cause);
    await process.apply(
      match.transactionId,
      tenant,
      { type: 'recordPayment', amount: dec(payment.amount).toFixed(2), payerReference: payment.reference, at },
      cause,
    );
    if (!state.payment) this.accounts.counted.inc({ provider: event.provider, outcome: match.late ? 'late' : 'paid' });
  }

  /** Gives back a payment no on-ramp can take; no answer fails the event, which is tried again (see refund). */
  private async refundAtOnce(
    live: LiveCollections,
    provider: string,
    payment: CollectionPayment,
    match: Extract<RecordedMatch, { kind: 'refund' }>,
  ): Promise<void> {
    if (match.refund !== null) return;
    const refund = await live.refund(provider, payment, `not matched to an on-ramp: ${match.reason}`.slice(0, 200));
    if (refund.state === 'unknown') throw new Error(`the refund of ${payment.reference} at ${provider} got no answer (${refund.reason}); asked again`);
    await this.accounts.recordRefund(provider, payment.reference, refund.state);
    this.accounts.counted.inc({ provider, outcome: refund.state === 'refunded' ? 'refunded_unmatched' : 'refund_rejected' });
    const where = { provider, reference: payment.reference, amount: payment.amount, accountNumber: payment.accountNumber, reason: match.reason };
    if (refund.state === 'refunded') this.logger.warn(where, "a payment into a payer's account that no on-ramp could take was refunded");
    else this.logger.error({ ...where, refusal: refund.reason }, 'the partner refused to refund a payment no on-ramp could take: an operator must look');
  }
}
