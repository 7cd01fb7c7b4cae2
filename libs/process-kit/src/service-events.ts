import { headers as natsHeaders, type NatsConnection } from 'nats';
import type { Pool } from 'pg';
import { INTEGRATION_HEADERS, integrationEvents, type EventStreamName } from '@ramp/contracts';
import { ensureDeadLetterStream, ensureStream, EventConsumer, Relay, type EventLog, type RelayLogger } from '@ramp/event-store';
import type { Metrics } from '@ramp/observability';
import { integrationEventOf, viewAtVersion, type AnyTransactionKind } from '@ramp/transactions';

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
    metrics: options.metrics,
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
 * INTEGRATION_EVENTS) with the tenant, initiating key and callback URL in headers (INTEGRATION_HEADERS), from the service's own event stream: each terminal event once (the consumer's inbox; the event
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
      if (!/\.(completed|failed)$/.test(event.type)) return;
      const history = await options.log.readStream(tx, event.streamId);
      const view = viewAtVersion(options.kinds, history, event.streamVersion);
      const integration = view && integrationEventOf(view, event.type, event.eventId, event.createdAt);
      if (!integration) return;
      // Routing for the notifier travels in headers, so that the payload is exactly the webhook body.
      const h = natsHeaders();
      // The initiating request's tenant: its key signs the callback, whoever caused the terminal event.
      const { tenant } = history[0]?.metadata ?? event.metadata;
      h.set(INTEGRATION_HEADERS.organizationId, tenant.organizationId);
      h.set(INTEGRATION_HEADERS.environment, tenant.environment);
      h.set(INTEGRATION_HEADERS.keyId, tenant.keyId);
      const callbackUrl = (history[0]?.data as { callbackUrl?: string | null } | undefined)?.callbackUrl;
      if (callbackUrl) h.set(INTEGRATION_HEADERS.callbackUrl, callbackUrl);
      // For the notifier's logs: the transaction, and the request that started it.
      h.set(INTEGRATION_HEADERS.correlationId, event.metadata.correlationId);
      const requestId = history[0]?.metadata.requestId;
      if (requestId) h.set(INTEGRATION_HEADERS.requestId, requestId);
      await js.publish(`${target.subjectPrefix}.${integration.event}`, JSON.stringify(integration), { msgID: event.eventId, headers: h });
      options.logger.info({ event: integration.event }, 'integration event published');
    },
  });
  await consumer.start();
  return consumer;
}
