import { AckPolicy, DeliverPolicy, headers as natsHeaders, type Consumer, type JetStreamClient, type JetStreamManager, type JsMsg } from 'nats';
import type { Pool, PoolClient } from 'pg';
import { withLogContext, type LogContext, type Metrics } from '@ramp/observability';
import { schemaName, withTransaction } from '@ramp/database';
import type { ConsumedEvent, JetStreamHandlerOptions } from './jetstream-handler';
import { isInfrastructureError } from './outage';
import { deadLetterSubject } from './streams';

/** Where a consumer logs (the service's logger). */
export interface ConsumerLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** One bound handler: its settings, where it reads, and how the transport runs it. */
export interface DurableConsumerSpec {
  options: JetStreamHandlerOptions<ConsumedEvent>;
  stream: string;
  /** One subject filter (nats-server 2.9 allows one per consumer). */
  filterSubject: string;
  /** Runs the handler for one event inside `tx`; rejects with the handler's own error. */
  handle: (event: ConsumedEvent, message: JsMsg, tx: PoolClient) => Promise<void>;
}

export interface ConsumerHost {
  /** The service whose schema holds the inbox (and whose name goes into the dead-letter subject). */
  service: string;
  schema: string;
  pool: Pool;
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: ConsumerLogger;
  metrics?: Metrics;
}

const NANOS_PER_MS = 1_000_000;
const DEFAULT_BACKOFF_MS = [200, 1000, 5000, 15_000, 30_000, 60_000];
/** How long an idle pull request waits for messages (the least nats.js allows): also the most a stop waits for one. */
const FETCH_EXPIRES_MS = 1000;
const FETCH_RETRY_MS = 1000;
/** Messages one pull request asks for when events are handled one by one. */
const MIN_FETCH = 10;
type Outcome = 'handled' | 'duplicate' | 'retried' | 'dead_lettered' | 'skipped';

/**
 * A durable pull consumer of {@link JetStreamServer}, one per bound handler. Each event is handled in a PostgreSQL
 * transaction that also inserts its id into the service's inbox, and acknowledged only after that transaction commits.
 * A redelivery of an event already in the inbox (a crash between commit and ack, a duplicate publish) is acknowledged
 * without running the handler again, so every effect happens once. A failing event is retried with backoff and, after
 * `maxAttempts`, published to the dead-letter stream with its error and terminated (unless its error is transient). An
 * event delivered to a replica that died is redelivered after `ackWaitMs`.
 */
export class DurableConsumer {
  private loop: Promise<void> | undefined;
  private stopped = false;
  /** Wakes whichever side waits: the fetching for room, the handling for messages, a pause for the stop. */
  private readonly changed = new Signal();

  constructor(
    private readonly host: ConsumerHost,
    private readonly spec: DurableConsumerSpec,
  ) {}

  get name(): string {
    return this.spec.options.durable;
  }

  async start(): Promise<void> {
    const { jsm, js, metrics } = this.host;
    const { stream, filterSubject, options } = this.spec;
    const batchSize = options.batchSize ?? 1;
    const config = {
      durable_name: this.name,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: options.startAt === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
      filter_subject: filterSubject,
      ack_wait: (options.ackWaitMs ?? 30_000) * NANOS_PER_MS,
      max_deliver: -1,
      // Batches take what is waiting; more than a few batches waiting would outlive their ack wait.
      max_ack_pending: batchSize > 1 ? batchSize * 4 : 1000,
    };
    try {
      await jsm.consumers.info(stream, this.name);
      await jsm.consumers.update(stream, this.name, { ack_wait: config.ack_wait, max_ack_pending: config.max_ack_pending });
    } catch (error) {
      if (!/consumer not found/i.test(String((error as Error).message))) throw error;
      await jsm.consumers.add(stream, config);
    }
    this.loop = this.run(await js.consumers.get(stream, this.name), batchSize);
    metrics?.watchConsumer(this.name, stream, async () => {
      const info = await jsm.consumers.info(stream, this.name);
      return { pending: info.num_pending, ackPending: info.num_ack_pending };
    });
  }

  /**
   * Stops fetching, waits for the pull request in progress to end (at most FETCH_EXPIRES_MS) and handles what it
   * delivered: every message this replica was given is committed and acknowledged, or retried as usual, before it
   * returns. (Closing a pull request early would strand what the server is still sending it until the ack wait ends.)
   */
  async stop(): Promise<void> {
    this.host.metrics?.unwatchConsumer(this.name);
    this.stopped = true;
    this.changed.notify();
    await this.loop;
  }

  /** One pull request at a time fills the queue; events are handled from it one by one, or in batches. */
  private async run(consumer: Consumer, batchSize: number): Promise<void> {
    const fetchSize = Math.max(batchSize, MIN_FETCH);
    const queue: JsMsg[] = [];
    let fetching = true;
    const fetch = (async () => {
      while (!this.stopped) {
        if (queue.length >= fetchSize) {
          await this.changed.wait();
          continue;
        }
        try {
          for await (const message of await consumer.fetch({ max_messages: fetchSize, expires: FETCH_EXPIRES_MS })) {
            queue.push(message);
            this.changed.notify();
          }
        } catch (error) {
          // NATS restarting, the consumer being recreated: try again shortly.
          if (this.stopped) break;
          this.host.logger.warn({ err: error, consumer: this.name }, 'fetching events failed; will retry');
          await Promise.race([sleep(FETCH_RETRY_MS), this.changed.wait()]);
        }
      }
      fetching = false;
      this.changed.notify();
    })();
    for (;;) {
      if (queue.length === 0) {
        if (!fetching) break;
        await this.changed.wait();
        continue;
      }
      // What has arrived while the previous batch was being handled goes into the next one.
      const taken = queue.splice(0, batchSize);
      this.changed.notify();
      if (batchSize > 1) await this.processBatch(taken);
      else await this.process(taken[0]!);
    }
    await fetch;
  }

  private decode(message: JsMsg): ConsumedEvent {
    const { decode } = this.spec.options;
    const event = decode ? decode(message) : (JSON.parse(message.string()) as ConsumedEvent);
    if (!event?.eventId) throw new Error('not an event');
    return event;
  }

  /** Records the event in the inbox and, when it is fresh, handles it; true when it was fresh. */
  private async handleInTransaction(event: ConsumedEvent, message: JsMsg, tx: PoolClient): Promise<boolean> {
    if (this.spec.options.inbox !== false) {
      const inserted = await tx.query(`insert into ${schemaName(this.host.schema)}.inbox (consumer, event_id) values ($1, $2) on conflict do nothing`, [
        this.name,
        event.eventId,
      ]);
      if (inserted.rowCount !== 1) return false;
    }
    await withLogContext(logContextOf(event), () => this.spec.handle(event, message, tx), { fresh: true });
    return true;
  }

  /** Counts an event's outcome once its transaction has committed (or it has been given up). */
  private settled(event: ConsumedEvent | undefined, outcome: Outcome): void {
    const { metrics } = this.host;
    if (!metrics) return;
    metrics.eventsConsumed.inc({ consumer: this.name, outcome });
    const appended = event?.createdAt ? Date.parse(event.createdAt) : NaN;
    if (outcome === 'handled' && Number.isFinite(appended))
      metrics.eventLagSeconds.observe({ consumer: this.name }, Math.max(0, (Date.now() - appended) / 1000));
  }

  /** True when the handler does not act on the event (JetStreamHandlerOptions.types): it is acknowledged here. */
  private skipped(message: JsMsg, event: ConsumedEvent): boolean {
    const { types } = this.spec.options;
    if (!types || types.includes(event.type)) return false;
    this.settled(event, 'skipped');
    message.ack();
    return true;
  }

  private async processBatch(batch: JsMsg[]): Promise<void> {
    // A redelivery has failed before (or its replica died): on its own, so that it cannot fail a batch again, and first,
    // since it is older than the fresh events beside it (a projection's next event waits for it).
    for (const message of batch) if (message.info.deliveryCount > 1) await this.process(message);
    const decoded: { message: JsMsg; event: ConsumedEvent }[] = [];
    for (const message of batch) {
      if (message.info.deliveryCount > 1) continue;
      let event: ConsumedEvent;
      try {
        event = this.decode(message);
      } catch (error) {
        await this.deadLetter(message, undefined, error);
        continue;
      }
      if (!this.skipped(message, event)) decoded.push({ message, event });
    }
    await this.handleTogether(decoded);
  }

  /** Handles events in one transaction; if it fails, each again on its own, with its own retries and dead letter. */
  private async handleTogether(decoded: { message: JsMsg; event: ConsumedEvent }[]): Promise<void> {
    if (decoded.length === 0) return;
    let fresh: boolean[];
    try {
      fresh = await withTransaction(this.host.pool, async (tx) => {
        const results: boolean[] = [];
        for (const { event, message } of decoded) results.push(await this.handleInTransaction(event, message, tx));
        return results;
      });
    } catch (error) {
      // One at a time, each with its own retries and dead-lettering.
      this.host.logger.warn({ err: error, consumer: this.name, events: decoded.length }, 'a batch of events failed together; handling them one by one');
      for (const { message, event } of decoded) await this.processDecoded(message, event);
      return;
    }
    decoded.forEach(({ message, event }, index) => {
      this.settled(event, fresh[index] ? 'handled' : 'duplicate');
      message.ack();
    });
  }

  private async process(message: JsMsg): Promise<void> {
    let event: ConsumedEvent;
    try {
      event = this.decode(message);
    } catch (error) {
      await this.deadLetter(message, undefined, error);
      return;
    }
    if (this.skipped(message, event)) return;
    await this.processDecoded(message, event);
  }

  private processDecoded(message: JsMsg, event: ConsumedEvent): Promise<void> {
    return withLogContext(logContextOf(event), () => this.processOne(message, event), { fresh: true });
  }

  private async processOne(message: JsMsg, event: ConsumedEvent): Promise<void> {
    const { options } = this.spec;
    try {
      const fresh = await withTransaction(this.host.pool, (tx) => this.handleInTransaction(event, message, tx));
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
      this.host.logger.warn(
        { err: error, consumer: this.name, eventId: event.eventId, type: event.type, attempt, retryInMs: delay },
        'event handling failed; will retry',
      );
      this.settled(event, 'retried');
      message.nak(delay);
    }
  }

  private async deadLetter(message: JsMsg, event: ConsumedEvent | undefined, error: unknown): Promise<void> {
    const { host } = this;
    const h = natsHeaders();
    h.set('Consumer', this.name);
    h.set('Original-Subject', message.subject);
    h.set('Error', String((error as Error)?.message ?? error).slice(0, 500));
    h.set('Attempts', String(message.info.deliveryCount));
    try {
      await host.js.publish(deadLetterSubject(host.service, this.name), message.data, {
        headers: h,
        msgID: event ? `${this.name}:${event.eventId}` : undefined,
      });
      host.logger.error({ err: error, consumer: this.name, eventId: event?.eventId, type: event?.type }, 'event moved to the dead-letter stream');
      this.settled(event, 'dead_lettered');
      message.term();
    } catch (publishError) {
      // Not dead-lettered: leave it to be redelivered rather than lose it.
      host.logger.error({ err: publishError, consumer: this.name }, 'could not dead-letter an event; it will be redelivered');
      message.nak(5000);
    }
  }
}

/** The ids a consumed event carries into the log lines of its handling. */
function logContextOf(event: ConsumedEvent): LogContext {
  const { metadata } = event;
  return { eventId: event.eventId, correlationId: metadata?.correlationId, causationId: metadata?.causationId, requestId: metadata?.requestId };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** A promise that whoever waits gets resolved at the next notify(). */
class Signal {
  private next: { promise: Promise<void>; resolve: () => void } | undefined;

  wait(): Promise<void> {
    if (!this.next) {
      let resolve: () => void = () => undefined;
      const promise = new Promise<void>((done) => (resolve = done));
      this.next = { promise, resolve };
    }
    return this.next.promise;
  }

  notify(): void {
    const current = this.next;
    this.next = undefined;
    current?.resolve();
  }
}
