import { headers as natsHeaders, type NatsConnection } from 'nats';
import type { Pool } from 'pg';
import { integrationEvents, type EventStreamName } from '@ramp/contracts';
import { ensureDeadLetterStream, ensureStream, EventConsumer, Relay, type EventLog, type RelayLogger } from '@ramp/event-store';
import type { Metrics } from '@ramp/observability';
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
}

/** Starts the relay of a service's log (one leader among the replicas); stop it with `relay.stop()`. */
export async function startLogRelay(options: LogRelayOptions): Promise<Relay> {
  const jsm = await options.nc.jetstreamManager();
  const { stream, subjectPrefix } = options.events;
  await ensureStream(jsm, stream, [`${subjectPrefix}.>`]);
  // PostgreSQL is the record of truth: a stream that is empty (new, or lost) gets the whole log again. Event ids are
  // the message ids, so what the stream still holds within its duplicate window is not duplicated.
  if ((await jsm.streams.info(stream)).state.messages === 0) {
    await options.pool.query(`update ${options.log.schema}.relay_checkpoint set transaction_id = '0', global_position = 0, updated_at = now() where id = 1`);
  }
  await ensureDeadLetterStream(jsm);
  const relay = new Relay({
    connection: { connectionString: options.databaseUrl },
    log: options.log,
    js: options.nc.jetstream(),
    subjectOf: (event) => `${subjectPrefix}.${event.type}`,
    pollMs: 1000,
    logger: options.logger,
    metrics: options.metrics && { metrics: options.metrics, pool: options.pool },
  });
  relay.start();
  return relay;
}

export interface IntegrationPublisherOptions {
  service: string;
  nc: NatsConnection;
  pool: Pool;
  log: EventLog;
  events: EventStreamName;
  namespace: string;
  /** The transaction kinds of the service's log, to show a transaction as it was at its terminal event. */
  kinds: readonly AnyTransactionKind[];
  logger: RelayLogger;
  metrics?: Metrics;
}

/**
 * Publishes `<type>.completed|failed` with the spec's webhook payload on `integration.<type>.<outcome>` (stream
 * INTEGRATION_EVENTS) with the tenant, initiating key and callback URL in headers (INTEGRATION_HEADERS; see
 * integrationMessageOf), from the service's own event stream: each terminal event once (the consumer's inbox; the event
 * id is the message id, so a republish after a crash is dropped). Stop the returned consumer on shutdown.
 */
export async function startIntegrationPublisher(options: IntegrationPublisherOptions): Promise<EventConsumer> {
  const source = options.events;
  const target = integrationEvents(options.namespace);
  const jsm = await options.nc.jetstreamManager();
  const js = options.nc.jetstream();
  await ensureStream(jsm, source.stream, [`${source.subjectPrefix}.>`]);
  await ensureStream(jsm, target.stream, [`${target.subjectPrefix}.>`]);
  const consumer = new EventConsumer({
    service: options.service,
    schema: options.log.schema,
    name: `${options.log.schema}_integration`,
    stream: source.stream,
    filterSubject: `${source.subjectPrefix}.>`,
    pool: options.pool,
    js,
    jsm,
    logger: options.logger,
    metrics: options.metrics,
    handle: async (event, tx) => {
      if (!isTerminalEvent(event.type)) return;
      const history = await options.log.readStream(tx, event.streamId);
      const message = integrationMessageOf(options.kinds, history, event);
      if (!message) return;
      const h = natsHeaders();
      for (const [name, value] of Object.entries(message.headers)) h.set(name, value);
      await js.publish(`${target.subjectPrefix}.${message.payload.event}`, JSON.stringify(message.payload), { msgID: message.msgID, headers: h });
      options.logger.info({ event: message.payload.event }, 'integration event published');
    },
  });
  await consumer.start();
  return consumer;
}
