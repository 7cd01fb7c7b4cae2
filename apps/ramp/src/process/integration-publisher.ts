import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import type { Pool } from 'pg';
import { Config } from '@ramp/config';
import { integrationEvents, rampEvents } from '@ramp/contracts';
import { ensureStream, EventConsumer, type StoredEvent } from '@ramp/event-store';
import { integrationEventOf, projectRampEvent, type ProjectedTransaction, type TransactionView } from '@ramp/ramping';
import { LOGGER, NATS_CONNECTION, PG_POOL, type Logger } from '@ramp/service-kit';
import { RAMP_LOG } from './log';

/**
 * Publishes `onramp.completed|failed` and `offramp.completed|failed` with the spec's webhook payload on
 * `integration.<type>.<outcome>` (stream INTEGRATION_EVENTS), from the ramp's own event stream: each terminal event
 * once (the consumer's inbox; the event id is the message id, so a republish after a crash is dropped).
 */
@Injectable()
export class IntegrationPublisher implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer: EventConsumer | undefined;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(Config) private readonly config: Config,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const namespace = this.config.string('eventsNamespace');
    const source = rampEvents(namespace);
    const target = integrationEvents(namespace);
    const jsm = await this.nc.jetstreamManager();
    const js = this.nc.jetstream();
    await ensureStream(jsm, source.stream, [`${source.subjectPrefix}.>`]);
    await ensureStream(jsm, target.stream, [`${target.subjectPrefix}.>`]);
    this.consumer = new EventConsumer({
      service: 'ramp',
      schema: 'ramp',
      name: 'ramp_integration',
      stream: source.stream,
      filterSubject: `${source.subjectPrefix}.>`,
      pool: this.pool,
      js,
      jsm,
      logger: this.logger,
      handle: async (event, tx) => {
        if (!/\.(completed|failed)$/.test(event.type)) return;
        const view = viewAt(await RAMP_LOG.readStream(tx, event.streamId), event.streamVersion);
        const integration = view && integrationEventOf(view, event.type, event.eventId, event.createdAt);
        if (!integration) return;
        await js.publish(`${target.subjectPrefix}.${integration.event}`, JSON.stringify(integration), { msgID: event.eventId });
      },
    });
    await this.consumer.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
  }
}

/** The transaction as it was right after its event `version`. */
function viewAt(events: StoredEvent[], version: number): TransactionView | undefined {
  let projected: ProjectedTransaction | undefined;
  let view: TransactionView | undefined;
  for (const event of events) {
    if (event.streamVersion > version) break;
    const outcome = projectRampEvent(projected, event);
    if (outcome.kind === 'applied') {
      projected = outcome.projected;
      view = outcome.view;
    }
  }
  return view;
}
