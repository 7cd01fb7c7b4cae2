import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { CHAIN_EVENT_TYPES, chainEvents, everyEventOf, integrationEvents, rampEvents } from '@ramp/contracts';
import type { StoredEvent } from '@ramp/event-store';
import { JetStreamEventPattern, type JetStreamContext } from '@ramp/messaging';
import { LOGGER, type Logger } from '@ramp/service-kit';
import { AllowedHosts } from '@ramp/webhooks';
import { DeliveryStore, type IncomingEvent } from './delivery-store';
import { decodeIntegrationMessage, withAllowedCallback } from './intake';
import { offrampEventOf, PAYOUT_REVERSED } from './offramp-events';
import { walletEventOf } from './wallet-events';

/** The durable consumer of the integration events, shared by the notifier's replicas. */
export const DELIVERIES_CONSUMER = 'notifier_deliveries';
/** The durable consumer of the chain service's events, for the wallets' webhook events. */
export const WALLET_EVENTS_CONSUMER = 'notifier_wallet_events';
/** The durable consumer of the ramp service's reversed payouts, for the off-ramps' `offramp.payout_reversed`. */
export const OFFRAMP_EVENTS_CONSUMER = 'notifier_offramp_events';

/**
 * Turns each integration event into its deliveries, written in one transaction with its inbox entry; and the chain
 * service's events about managed wallets into theirs.
 */
@Controller()
export class DeliveriesEventsController {
  constructor(
    @Inject(DeliveryStore) private readonly store: DeliveryStore,
    @Inject(AllowedHosts) private readonly allowed: AllowedHosts,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  // The cost of an event is its commit: events waiting together are recorded in one transaction.
  @JetStreamEventPattern<IncomingEvent>(everyEventOf(integrationEvents), {
    durable: DELIVERIES_CONSUMER,
    ackWaitMs: 10_000,
    batchSize: 50,
    decode: decodeIntegrationMessage,
  })
  async record(@Payload() event: IncomingEvent, @Ctx() context: JetStreamContext): Promise<void> {
    const deliveries = await this.store.recordEvent(context.tx, withAllowedCallback(event, this.allowed), new Date());
    this.logger.debug({ event: event.type, deliveries }, 'deliveries recorded');
  }

  /** The wallets' webhook events (walletEventOf) from the chain service's events: `wallet.deposit_reversed`. */
  // Only reversals make wallet events: the chain's other events are acknowledged without a transaction.
  @JetStreamEventPattern(everyEventOf(chainEvents), { durable: WALLET_EVENTS_CONSUMER, ackWaitMs: 10_000, types: [CHAIN_EVENT_TYPES.depositReversed] })
  async recordWalletEvent(@Payload() event: StoredEvent, @Ctx() context: JetStreamContext): Promise<void> {
    const incoming = walletEventOf(event);
    if (!incoming) return;
    const deliveries = await this.store.recordEvent(context.tx, incoming, new Date());
    this.logger.info({ event: incoming.type, deliveries, correlationId: event.metadata.correlationId }, 'wallet event recorded');
  }

  /** The off-ramps' webhook events after their end (offrampEventOf): only the ramp service's reversed payouts are read. */
  @JetStreamEventPattern(`${rampEvents().subjectPrefix}.${PAYOUT_REVERSED}`, { durable: OFFRAMP_EVENTS_CONSUMER, ackWaitMs: 10_000 })
  async recordOfframpEvent(@Payload() event: StoredEvent, @Ctx() context: JetStreamContext): Promise<void> {
    const incoming = offrampEventOf(event);
    if (!incoming) return;
    const deliveries = await this.store.recordEvent(context.tx, incoming, new Date());
    this.logger.info({ event: incoming.type, deliveries, correlationId: event.metadata.correlationId }, 'off-ramp event recorded');
  }
}
