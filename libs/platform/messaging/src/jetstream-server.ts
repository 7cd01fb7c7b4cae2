import { Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import type { JsMsg, NatsConnection } from 'nats';
import type { Pool, PoolClient } from 'pg';
import { lastValueFrom } from 'rxjs';
import { EVENT_STREAMS, type EventStreamName, type EventStreamOf } from '@ramp/contracts';
import type { Metrics } from '@ramp/observability';
import { DurableConsumer, type ConsumerLogger, type DurableConsumerSpec } from './durable-consumer';
import { JETSTREAM, JetStreamContext, KEEPS_HANDLER_ERRORS, type ConsumedEvent, type JetStreamHandlerOptions } from './jetstream-handler';
import { ensureDeadLetterStream, ensureStream, JETSTREAM_API_TIMEOUT_MS } from './streams';

export interface JetStreamServerOptions {
  /** The service's name: the dead-letter subject's second part (`deadletter.<service>.<durable>`). */
  service: string;
  /** The service's schema, whose `inbox` table records the events its handlers have handled. */
  schema: string;
  pool: Pool;
  /** The service's NATS connection (the transport neither opens nor closes it). */
  nc: NatsConnection;
  /** EVENTS_NAMESPACE: added to the streams and subjects of every handler's pattern. */
  namespace: string;
  logger: ConsumerLogger;
  metrics?: Metrics;
  /** STREAM_REPLICAS: of the streams it creates (see ensureStream). */
  replicas?: number;
  /** The logical streams patterns may name (default: every stream of the platform, EVENT_STREAMS). */
  streams?: readonly EventStreamOf[];
}

interface Binding {
  pattern: string;
  options: JetStreamHandlerOptions<ConsumedEvent>;
  handler: MessageHandler;
}

/**
 * The JetStream transport: a `CustomTransportStrategy` that binds every `@JetStreamEventPattern` handler of the
 * service's controllers to a durable pull consumer of its own (settings from the decorator's options), and runs it with
 * the service's inbox, retries with backoff, dead letters, batches, metrics and log context. Message patterns, and
 * event handlers of other transports, are not its business. `close()` stops fetching, finishes what is in flight and
 * returns; the NATS connection and the pool stay open for the service to close after it.
 */
export class JetStreamServer extends Server implements CustomTransportStrategy {
  override readonly transportId = JETSTREAM;
  private readonly bindings: Binding[] = [];
  private readonly consumers: DurableConsumer[] = [];

  constructor(private readonly settings: JetStreamServerOptions) {
    super();
  }

  /** Keeps JetStream handlers only: a message pattern, or an event handler not declared for JetStream, is left alone. */
  override addHandler(pattern: unknown, callback: MessageHandler, isEventHandler = false, extras: Record<string, unknown> = {}): void {
    if (!isEventHandler || extras[KEEPS_HANDLER_ERRORS] !== true) return;
    if (typeof pattern !== 'string') throw new Error(`a JetStream handler's pattern is a subject string, not ${JSON.stringify(pattern)}`);
    const { [KEEPS_HANDLER_ERRORS]: _marker, ...options } = extras;
    this.bindings.push({ pattern, options: options as unknown as JetStreamHandlerOptions<ConsumedEvent>, handler: callback });
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      await this.start();
      callback();
    } catch (error) {
      await this.close().catch(() => undefined);
      callback(error);
    }
  }

  async close(): Promise<void> {
    const consumers = this.consumers.splice(0);
    await Promise.all(consumers.map((consumer) => consumer.stop()));
    // The acknowledgements of what just finished leave before the service closes its connection.
    if (!this.settings.nc.isClosed()) await this.settings.nc.flush().catch(() => undefined);
  }

  /** The transport has no events of its own to listen to. */
  on(): void {
    throw new Error('JetStreamServer has no events to listen to');
  }

  unwrap<T>(): T {
    return this.settings.nc as T;
  }

  private async start(): Promise<void> {
    const { nc, service, schema, pool, logger, metrics } = this.settings;
    const durables = new Set<string>();
    for (const { options } of this.bindings) {
      if (!options.durable) throw new Error('a JetStream handler needs a durable consumer name');
      if (durables.has(options.durable)) throw new Error(`two JetStream handlers share the durable consumer ${options.durable}`);
      durables.add(options.durable);
    }
    if (this.bindings.length === 0) return;
    const jsm = await nc.jetstreamManager({ timeout: JETSTREAM_API_TIMEOUT_MS });
    const host = { service, schema, pool, js: nc.jetstream({ timeout: JETSTREAM_API_TIMEOUT_MS }), jsm, logger, metrics };
    await ensureDeadLetterStream(jsm, { replicas: this.settings.replicas });
    const ensured = new Set<string>();
    for (const binding of this.bindings) {
      const { stream, subjectPrefix, filterSubject } = this.resolve(binding.pattern);
      // Created here too, so that a consumer may start before the service that publishes into the stream.
      if (!ensured.has(stream)) await ensureStream(jsm, stream, [`${subjectPrefix}.>`], { replicas: this.settings.replicas, update: false });
      ensured.add(stream);
      const consumer = new DurableConsumer(host, { options: binding.options, stream, filterSubject, handle: this.runner(binding) });
      await consumer.start();
      this.consumers.push(consumer);
    }
  }

  /** The namespaced stream and subject filter of a pattern named as in production (`events.ramp.>`). */
  private resolve(pattern: string): EventStreamName & { filterSubject: string } {
    for (const streamOf of this.settings.streams ?? EVENT_STREAMS) {
      const { subjectPrefix: base } = streamOf();
      if (!pattern.startsWith(`${base}.`)) continue;
      const named = streamOf(this.settings.namespace);
      return { ...named, filterSubject: `${named.subjectPrefix}${pattern.slice(base.length)}` };
    }
    throw new Error(`no event stream carries the subjects ${pattern}`);
  }

  /** Calls the bound handler with the event and its context, and settles what it returned (a value, a promise, an observable). */
  private runner(binding: Binding): DurableConsumerSpec['handle'] {
    return async (event: ConsumedEvent, message: JsMsg, tx: PoolClient) => {
      const result: unknown = await binding.handler(event, new JetStreamContext([message, tx, binding.options.durable]));
      await lastValueFrom(this.transformToObservable(result), { defaultValue: undefined });
    };
  }
}
