import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import type { Pool } from 'pg';
import { Config } from '@ramp/config';
import { integrationEvents } from '@ramp/contracts';
import { ensureDeadLetterStream, ensureStream, EventConsumer, WakeupListener, Waker } from '@ramp/event-store';
import { Metrics } from '@ramp/observability';
import { LOGGER, NATS_CONNECTION, PG_POOL, type Logger } from '@ramp/service-kit';
import { AllowedHosts } from '@ramp/webhooks';
import { DELIVERIES_CHANNEL, DeliveryStore, type IncomingEvent } from './delivery-store';
import { DeliveryWorker } from './delivery-worker';
import { HttpsSender } from './https-sender';
import { decodeIntegrationMessage } from './intake';

/** The durable consumer of the integration events, shared by the notifier's replicas. */
export const DELIVERIES_CONSUMER = 'notifier_deliveries';

/**
 * For the notifier's lifetime, on every replica: the durable consumer that turns each integration event into
 * deliveries (in one transaction with its inbox entry), the LISTEN that wakes the worker, and the worker.
 */
@Injectable()
export class DeliveryHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer: EventConsumer<IncomingEvent> | undefined;
  private listener: WakeupListener | undefined;

  constructor(
    @Inject(DeliveryWorker) private readonly worker: DeliveryWorker,
    @Inject(DeliveryStore) private readonly store: DeliveryStore,
    @Inject(HttpsSender) private readonly sender: HttpsSender,
    @Inject(Waker) private readonly waker: Waker,
    @Inject(AllowedHosts) private readonly allowed: AllowedHosts,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(Config) private readonly config: Config,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(Metrics) private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.listener = new WakeupListener({
      databaseUrl: this.config.string('databaseUrl'),
      applicationName: 'notifier-deliveries',
      channel: DELIVERIES_CHANNEL,
      waker: this.waker,
      logger: this.logger,
    });
    await this.listener.start();
    this.worker.start();

    const { stream, subjectPrefix } = integrationEvents(this.config.string('eventsNamespace'));
    const jsm = await this.nc.jetstreamManager();
    await ensureDeadLetterStream(jsm);
    // Created here too, so that the notifier may start before the services that publish into it.
    await ensureStream(jsm, stream, [`${subjectPrefix}.>`]);
    this.consumer = new EventConsumer<IncomingEvent>({
      service: 'notifier',
      schema: 'notifier',
      name: DELIVERIES_CONSUMER,
      stream,
      filterSubject: `${subjectPrefix}.>`,
      pool: this.pool,
      js: this.nc.jetstream(),
      jsm,
      ackWaitMs: 10_000,
      // The cost of an event is its commit: events waiting together are recorded in one transaction.
      batchSize: 50,
      logger: this.logger,
      metrics: this.metrics,
      decode: (message) => decodeIntegrationMessage(message, this.allowed),
      handle: async (event, tx) => {
        const deliveries = await this.store.recordEvent(tx, event, new Date());
        this.logger.debug({ event: event.type, deliveries }, 'deliveries recorded');
      },
    });
    await this.consumer.start();
  }

  /** Stops taking events, then lets the attempts in flight finish; leases of anything unfinished expire and are resent. */
  async onApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
    await this.worker.stop();
    await this.listener?.stop();
    this.sender.close();
    await this.store.close();
  }
}
