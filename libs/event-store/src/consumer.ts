import { AckPolicy, DeliverPolicy, headers as natsHeaders, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from 'nats';
import type { Pool, PoolClient } from 'pg';
import { isInfrastructureError } from '@ramp/messaging';
import { withLogContext, type LogContext, type Metrics } from '@ramp/observability';
import type { EventMetadata, StoredEvent } from './events';
import type { RelayLogger } from './relay';
import { schemaName, withTransaction } from './sql';
import { deadLetterSubject } from './streams';

const NANOS_PER_MS = 1_000_000;

/** What a consumer needs of a message: an id (for the inbox), a type and the ids of its cause (for logs). */
export interface ConsumedEvent {
  eventId: string;
  type: string;
  metadata?: Partial<Pick<EventMetadata, 'correlationId' | 'causationId' | 'requestId'>>;
  /** When the event was appended (ISO 8601), for the handling-lag histogram. */
  createdAt?: string;
}

export interface ConsumerOptions<E extends ConsumedEvent = StoredEvent> {
  /** The service whose schema holds the inbox (and whose name goes into the dead-letter subject). */
  service: string;
  schema: string;
  /** Durable consumer name, shared by the service's replicas so that they share the work. */
  name: string;
  stream: string;
  /** One subject filter (nats-server 2.9 allows one per consumer). */
  filterSubject: string;
  pool: Pool;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /**
   * false for a handler that is idempotent by itself (a projection that checks stream versions, and is rebuilt by
   * replaying the stream, which an inbox would refuse). Default true.
   */
  inbox?: boolean;
  /**
   * Reads a message (default: the JSON of a StoredEvent). Throw for a message that can never be processed: it goes to
   * the dead-letter stream at once.
   */
  decode?: (message: JsMsg) => E;
  /** Runs inside the transaction that also records the event in the inbox; throw to have it retried. */
  handle: (event: E, tx: PoolClient) => Promise<void>;
  /**
   * Errors that will clear by themselves (a projection waiting for a stream's earlier event): retried with backoff
   * for as long as it takes, never dead-lettered. Infrastructure that is down or restarting (PostgreSQL, NATS:
   * {@link isInfrastructureError}) always counts as transient: an outage is no reason to give an event up.
   */
  isTransient?: (error: unknown) => boolean;
  /** Attempts before the event goes to the dead-letter stream (default 8). */
  maxAttempts?: number;
  /** Delay before attempt n+1, by n (the last value repeats). */
  backoffMs?: number[];
  ackWaitMs?: number;
  /**
   * Events handled in one transaction when several are waiting (default 1). Throughput for handlers whose cost is the
   * commit; a batch that fails is handled again event by event, so one bad event never holds up the others.
   */
  batchSize?: number;
  logger: RelayLogger;
  /** Counts outcomes and samples the consumer's backlog at every scrape (ramp_events_consumed_total, ramp_consumer_*). */
  metrics?: Metrics;
}

const DEFAULT_BACKOFF_MS = [200, 1000, 5000, 15_000, 30_000, 60_000];

/**
 * A durable pull consumer with an inbox: each event is handled in a PostgreSQL transaction that also inserts its id
 * into the service's inbox, and acknowledged only after that transaction commits. A redelivery of an event already
 * in the inbox (a crash between commit and ack, a duplicate publish) is acknowledged without running the handler
 * again, so every effect happens once. A failing event is retried with backoff and, after `maxAttempts`, published
 * to the dead-letter stream with its error and terminated (unless its error is transient). An event delivered to a
 * replica that died is redelivered after `ackWaitMs`.
 */
export class EventConsumer<E extends ConsumedEvent = StoredEvent> {
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private stopped = false;
  /** Events handled (not counting duplicates), for tests and metrics. */
  handled = 0;
  duplicates = 0;

  constructor(private readonly options: ConsumerOptions<E>) {}

  async start(): Promise<void> {
    const { jsm, js, stream, name, filterSubject } = this.options;
    const config = {
      durable_name: name,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: filterSubject,
      ack_wait: (this.options.ackWaitMs ?? 30_000) * NANOS_PER_MS,
      max_deliver: -1,
      // Batches take what is waiting; more than a few batches waiting would outlive their ack wait.
      max_ack_pending: (this.options.batchSize ?? 1) > 1 ? (this.options.batchSize ?? 1) * 4 : 1000,
    };
    try {
      await jsm.consumers.info(stream, name);
      await jsm.consumers.update(stream, name, { ack_wait: config.ack_wait, max_ack_pending: config.max_ack_pending });
    } catch (error) {
      if (!/consumer not found/i.test(String((error as Error).message))) throw error;
      await jsm.consumers.add(stream, config);
    }
    const consumer = await js.consumers.get(stream, name);
    this.messages = await consumer.consume({ max_messages: 100 });
    this.loop = this.run(this.messages);
    this.options.metrics?.watchConsumer(name, stream, async () => {
      const info = await jsm.consumers.info(stream, name);
      return { pending: info.num_pending, ackPending: info.num_ack_pending };
    });
  }

  async stop(): Promise<void> {
    this.options.metrics?.unwatchConsumer(this.options.name);
    this.stopped = true;
    await this.messages?.close();
    await this.loop;
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    const batchSize = this.options.batchSize ?? 1;
    if (batchSize <= 1) {
      for await (const message of messages) {
        if (this.stopped) {
          message.nak();
          continue;
        }
        await this.process(message);
      }
      return;
    }
    // Batches: what has arrived while the previous batch was being handled goes into the next one.
    const queue: JsMsg[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    const pump = (async () => {
      for await (const message of messages) {
        queue.push(message);
        wake?.();
      }
      ended = true;
      wake?.();
    })();
    for (;;) {
      if (queue.length === 0) {
        if (ended) break;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      const batch = queue.splice(0, batchSize);
      if (this.stopped) {
        for (const message of batch) message.nak();
        continue;
      }
      await this.processBatch(batch);
    }
    await pump;
  }

  private decode(message: JsMsg): E {
    const event = this.options.decode ? this.options.decode(message) : (JSON.parse(message.string()) as E);
    if (!event?.eventId) throw new Error('not an event');
    return event;
  }

  /** Records and handles each fresh event in the inbox; true when it was fresh. */
  private async handleInTransaction(event: E, tx: PoolClient): Promise<boolean> {
    const { options } = this;
    if (options.inbox !== false) {
      const inserted = await tx.query(`insert into ${schemaName(options.schema)}.inbox (consumer, event_id) values ($1, $2) on conflict do nothing`, [options.name, event.eventId]);
      if (inserted.rowCount !== 1) return false;
    }
    await withLogContext(logContextOf(event), () => options.handle(event, tx), { fresh: true });
    return true;
  }

  /** Counts an event's outcome once its transaction has committed (or it has been given up). */
  private settled(event: E | undefined, outcome: 'handled' | 'duplicate' | 'retried' | 'dead_lettered'): void {
    if (outcome === 'handled') this.handled += 1;
    if (outcome === 'duplicate') this.duplicates += 1;
    const { metrics, name } = this.options;
    if (!metrics) return;
    metrics.eventsConsumed.inc({ consumer: name, outcome });
    const appended = event?.createdAt ? Date.parse(event.createdAt) : NaN;
    if (outcome === 'handled' && Number.isFinite(appended)) metrics.eventLagSeconds.observe({ consumer: name }, Math.max(0, (Date.now() - appended) / 1000));
  }

  private async processBatch(batch: JsMsg[]): Promise<void> {
    const decoded: { message: JsMsg; event: E }[] = [];
    for (const message of batch) {
      try {
        decoded.push({ message, event: this.decode(message) });
      } catch (error) {
        await this.deadLetter(message, undefined, error);
      }
    }
    if (decoded.length === 0) return;
    let fresh: boolean[];
    try {
      fresh = await withTransaction(this.options.pool, async (tx) => {
        const results: boolean[] = [];
        for (const { event } of decoded) results.push(await this.handleInTransaction(event, tx));
        return results;
      });
    } catch {
      // One at a time, each with its own retries and dead-lettering.
      for (const { message, event } of decoded) await this.processDecoded(message, event);
      return;
    }
    decoded.forEach(({ message, event }, index) => {
      this.settled(event, fresh[index] ? 'handled' : 'duplicate');
      message.ack();
    });
  }

  private async process(message: JsMsg): Promise<void> {
    let event: E;
    try {
      event = this.decode(message);
    } catch (error) {
      await this.deadLetter(message, undefined, error);
      return;
    }
    await this.processDecoded(message, event);
  }

  private processDecoded(message: JsMsg, event: E): Promise<void> {
    return withLogContext(logContextOf(event), () => this.processOne(message, event), { fresh: true });
  }

  private async processOne(message: JsMsg, event: E): Promise<void> {
    const { options } = this;
    try {
      const fresh = await withTransaction(options.pool, (tx) => this.handleInTransaction(event, tx));
      this.settled(event, fresh ? 'handled' : 'duplicate');
      message.ack();
    } catch (error) {
      const attempt = message.info.deliveryCount;
      if (attempt >= (options.maxAttempts ?? 8) && !isInfrastructureError(error) && !options.isTransient?.(error)) {
        await this.deadLetter(message, event, error);
        return;
      }
      const backoff = options.backoffMs ?? DEFAULT_BACKOFF_MS;
      const delay = backoff[Math.min(attempt - 1, backoff.length - 1)] ?? 1000;
      options.logger.warn({ err: error, consumer: options.name, eventId: event.eventId, type: event.type, attempt, retryInMs: delay }, 'event handling failed; will retry');
      this.settled(event, 'retried');
      message.nak(delay);
    }
  }

  private async deadLetter(message: JsMsg, event: E | undefined, error: unknown): Promise<void> {
    const { options } = this;
    const h = natsHeaders();
    h.set('Consumer', options.name);
    h.set('Original-Subject', message.subject);
    h.set('Error', String((error as Error)?.message ?? error).slice(0, 500));
    h.set('Attempts', String(message.info.deliveryCount));
    try {
      await options.js.publish(deadLetterSubject(options.service, options.name), message.data, {
        headers: h,
        msgID: event ? `${options.name}:${event.eventId}` : undefined,
      });
      options.logger.error({ err: error, consumer: options.name, eventId: event?.eventId, type: event?.type }, 'event moved to the dead-letter stream');
      this.settled(event, 'dead_lettered');
      message.term();
    } catch (publishError) {
      // Not dead-lettered: leave it to be redelivered rather than lose it.
      options.logger.error({ err: publishError, consumer: options.name }, 'could not dead-letter an event; it will be redelivered');
      message.nak(5000);
    }
  }
}

/** The ids a consumed event carries into the log lines of its handling. */
function logContextOf(event: ConsumedEvent): LogContext {
  const { metadata } = event;
  return { eventId: event.eventId, correlationId: metadata?.correlationId, causationId: metadata?.causationId, requestId: metadata?.requestId };
}
