import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { everyEventOf, integrationEvents } from '@ramp/contracts';
import { JetStreamEventPattern, type JetStreamContext } from '@ramp/messaging';
import { LOGGER, type Logger } from '@ramp/service-kit';
import { AllowedHosts } from '@ramp/webhooks';
import { DeliveryStore, type IncomingEvent } from './delivery-store';
import { decodeIntegrationMessage, withAllowedCallback } from './intake';

/** The durable consumer of the integration events, shared by the notifier's replicas. */
export const DELIVERIES_CONSUMER = 'notifier_deliveries';

/** Turns each integration event into its deliveries, written in one transaction with its inbox entry. */
@Controller()
export class DeliveriesEventsController {
  constructor(
    @Inject(DeliveryStore) private readonly store: DeliveryStore,
    @Inject(AllowedHosts) private readonly allowed: AllowedHosts,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  // The cost of an event is its commit: events waiting together are recorded in one transaction.
  @JetStreamEventPattern<IncomingEvent>(everyEventOf(integrationEvents), { durable: DELIVERIES_CONSUMER, ackWaitMs: 10_000, batchSize: 50, decode: decodeIntegrationMessage })
  async record(@Payload() event: IncomingEvent, @Ctx() context: JetStreamContext): Promise<void> {
    const deliveries = await this.store.recordEvent(context.tx, withAllowedCallback(event, this.allowed), new Date());
    this.logger.debug({ event: event.type, deliveries }, 'deliveries recorded');
  }
}
