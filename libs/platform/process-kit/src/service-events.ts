import { headers as natsHeaders, type NatsConnection } from 'nats';
import type { Pool } from 'pg';
import { integrationEvents, type EventStreamName } from '@ramp/contracts';
import type { Sql } from '@ramp/database';
import { Relay, type EventLog, type RelayLogger, type StoredEvent } from '@ramp/event-store';
import { ensureDeadLetterStream, ensureStream, JETSTREAM_API_TIMEOUT_MS } from '@ramp/messaging';
import { withLogContext, type Metrics } from '@ramp/observability';
import type { AnyTransactionKind } from '@ramp/transactions';
import { integrationMessageOf, isTerminalEvent } from './integration-message';

export interface LogRelayOptions {
  nc: NatsConnection;
  pool: Pool;
  databaseUrl: string;
  log: EventLog;
  /** The service's stream: `<subjectPrefix>.<event type>`, e.g. `events.ramp.offramp.completed`. */
  events: EventStreamName;
  logger: RelayLogger;
  metrics?: Metrics;
  /** STREAM_REPLICAS: of the stream, if the relay creates it. */
  replicas?: number;
  /** Publishes the integration event of each transaction that ends, as the relay publishes its terminal event. */
  integration?: IntegrationPublisher;
}

/** Starts the relay of a service's log (one leader among the replicas); stop it with `relay.stop()`. */
export async function startLogRelay(options: LogRelayOptions): Promise<Relay> {
  const jsm = await options.nc.jetstreamManager({ timeout: JETSTREAM_API_TIMEOUT_MS });
  const { stream, subjectPrefix } = options.events;
  await ensureStream(jsm, stream, [`${subjectPrefix}.>`], { replicas: options.replicas });
  // PostgreSQL is the record of truth: a stream that is empty (new, or lost) gets the whole log again. Event ids are
  // the message ids, so what the stream still holds within its duplicate window is not duplicated.
  if ((await jsm.streams.info(stream)).state.messages === 0) {
    await options.pool.query(`update ${options.log.schema}.relay_checkpoint set transaction_id = '0', global_position = 0, updated_at = now() where id = 1`);
  }
  await ensureDeadLetterStream(jsm, { replicas: options.replicas });
  const relay = new Relay({
    connection: { connectionString: options.databaseUrl },
    log: options.log,
    js: options.nc.jetstream(),
    subjectOf: (event) => `${subjectPrefix}.${event.type}`,
    pollMs: 1000,
    logger: options.logger,
    metrics: options.metrics && { metrics: options.metrics, pool: options.pool },
    afterPublish: options.integration && ((client, events) => options.integration!.publishEnded(client, events)),
  });
  relay.start();
  return relay;
}

/**
 * Publishes `<type>.completed|failed` with the spec's webhook payload on `integration.<type>.<outcome>` (stream
 * INTEGRATION_EVENTS) with the tenant, initiating key and callback URL in headers (INTEGRATION_HEADERS; see
 * integrationMessageOf), for each terminal event of the service's log: the relay calls it with every batch it has
 * published, before its checkpoint moves. Its event id is the message id, so a batch published again after a crash is
 * dropped by the stream within its duplicate window, and by the notifier's inbox after it.
 */
export class IntegrationPublisher {
  private readonly target: EventStreamName;

  constructor(
    private readonly options: {
      nc: NatsConnection;
      log: EventLog;
      namespace: string;
      /** The transaction kinds of the service's log, to show a transaction as it was at its terminal event. */
      kinds: readonly AnyTransactionKind[];
      logger: RelayLogger;
      /** STREAM_REPLICAS: of the integration stream, if this creates it. */
      replicas?: number;
      /** Counts the terminal events whose integration event could not be built (ramp_integration_events_unbuildable_total). */
      metrics?: Metrics;
    },
  ) {
    this.target = integrationEvents(options.namespace);
  }

  /** Creates the integration stream, or brings it up to date, before anything is published into it. */
  async ensureTarget(): Promise<void> {
    await ensureStream(await this.options.nc.jetstreamManager({ timeout: JETSTREAM_API_TIMEOUT_MS }), this.target.stream, [`${this.target.subjectPrefix}.>`], {
      replicas: this.options.replicas,
    });
  }

  /**
   * Publishes the integration events of those of `events` that end their transaction, reading their histories in `db`
   * (one read for the batch).
   */
  async publishEnded(db: Sql, events: readonly StoredEvent[]): Promise<void> {
    const ended = events.filter((event) => isTerminalEvent(event.type));
    if (ended.length === 0) return;
    const histories = await this.options.log.readStreams(
      db,
      ended.map((event) => event.streamId),
    );
    await Promise.all(
      ended.map((event) =>
        // Logged as the transaction's work, as its steps are: under its correlation and request ids.
        withLogContext(
          {
            eventId: event.eventId,
            correlationId: event.metadata.correlationId,
            causationId: event.metadata.causationId,
            requestId: event.metadata.requestId,
          },
          async () => this.publish(event, histories.get(event.streamId) ?? []),
          { fresh: true },
        ),
      ),
    );
  }

  private async publish(event: StoredEvent, history: readonly StoredEvent[]): Promise<void> {
    const { kinds, nc, logger, log, metrics } = this.options;
    let message: ReturnType<typeof integrationMessageOf>;
    try {
      message = integrationMessageOf(kinds, history, event);
    } catch (error) {
      // A defect, not an outage: trying again builds the same failure, and holding the relay on it would stop the
      // service's whole stream (the read model, every other webhook). Said loudly and counted; the event stays in the log.
      logger.error(
        { err: error, eventId: event.eventId, streamId: event.streamId },
        'integration event could not be built: skipped, no webhook goes out for it',
      );
      metrics?.integrationEventsUnbuildable.inc({ log: log.schema });
      return;
    }
    if (!message) return;
    const h = natsHeaders();
    for (const [name, value] of Object.entries(message.headers)) h.set(name, value);
    await nc
      .jetstream()
      .publish(`${this.target.subjectPrefix}.${message.payload.event}`, JSON.stringify(message.payload), { msgID: message.msgID, headers: h });
    logger.info({ event: message.payload.event, transactionId: message.payload.data.transactionId }, 'integration event published');
  }
}
