import { NatsContext, NatsStatus, ServerNats, type IncomingRequest, type OutgoingResponse } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';
import type { Msg, NatsConnection, NatsError, Subscription } from 'nats';
import { HEADERS } from '@ramp/contracts';
import { secondsSince, withLogContext, type Metrics } from '@ramp/observability';
import { rpcFailureOf, type RpcLogger } from './rpc-errors';
import { INTERNAL_FAILURE, isRpcFailure, namespacedSubject, RpcReplySerializer, RpcRequestDeserializer, type RpcFailure } from './rpc-wire';

export interface NatsRpcServerOptions {
  /** The service's NATS connection, shared with its RpcClient and its JetStream work: one connection per process. */
  connection: NatsConnection;
  /** The service's name: the queue group in which its replicas share the requests, and the name its errors give. */
  service: string;
  /** EVENTS_NAMESPACE: every subject is served as `<namespace>.<subject>` (see namespacedSubject). */
  namespace: string;
  logger: RpcLogger;
  metrics?: Metrics;
}

interface InFlight {
  subject: string;
  started: bigint;
  answered: () => void;
  finished: Promise<void>;
}

/**
 * Nest's NATS transport (Transport.NATS) as the platform serves it: the `@MessagePattern(…, Transport.NATS)` handlers
 * (see Handles) on `<namespace>.<subject>` in the service's queue group, on the service's own NATS connection, with the
 * platform's envelope (rpc-wire.ts). Around what ServerNats does it adds: each request served within the log context
 * of its `x-request-id` and `x-correlation-id` headers; its latency by subject and outcome, and a debug line; on close
 * (SIGTERM), no new request taken and every one in flight answered before the service drains its connection.
 * Handlers' errors become replies in RpcErrorFilter (through failureOf).
 */
export class NatsRpcServer extends ServerNats {
  private readonly subscribed: Subscription[] = [];
  private readonly inFlight = new Map<Msg, InFlight>();
  /**
   * Each subject's handler, found once when it is subscribed: Nest's getHandlerByPattern tries JSON.parse on the
   * subject at every request, and a subject is not JSON, so each request paid for a SyntaxError (4% of the quote
   * service's time under bench:quote).
   */
  private readonly handlers = new Map<string, ReturnType<ServerNats['getHandlerByPattern']>>();

  constructor(private readonly settings: NatsRpcServerOptions) {
    super({ queue: settings.service, serializer: new RpcReplySerializer(), deserializer: new RpcRequestDeserializer() });
  }

  /** The reply a handler's error becomes (see rpcFailureOf); called by RpcErrorFilter. */
  failureOf(error: unknown): RpcFailure {
    return rpcFailureOf(error, this.settings.service, this.settings.logger);
  }

  /** The service's connection, made (and drained at shutdown) by the service rather than by the transport. */
  override createNatsClient(): Promise<NatsConnection> {
    return Promise.resolve(this.settings.connection);
  }

  /**
   * As ServerNats starts, except that `listen` resolves only once the NATS server has registered every subscription
   * (a flush round trip): a service that says it is listening can be called at once, by any other connection, without
   * a "no responders" answer in between.
   */
  override start(callback: (error?: unknown) => void): void {
    const client = this.settings.connection;
    this.bindEvents(client);
    client.flush().then(() => callback(), callback);
  }

  /** As ServerNats binds its handlers, each on its subject under the namespace. */
  override bindEvents(client: NatsConnection): void {
    for (const [subject, handler] of this.messageHandlers) {
      this.handlers.set(subject, this.getHandlerByPattern(subject));
      const queue = (handler.extras?.['queue'] as string | undefined) ?? this.settings.service;
      this.subscribed.push(client.subscribe(namespacedSubject(this.settings.namespace, subject), { queue, callback: this.getMessageHandler(subject) }));
    }
  }

  override getMessageHandler(subject: string): (error: NatsError | null, msg: Msg) => void {
    return (error, msg) => {
      if (error) {
        this.settings.logger.error({ err: error, subject }, 'subscription error');
        return;
      }
      void this.handleMessage(subject, msg);
    };
  }

  override async handleMessage(subject: string, msg: Msg): Promise<void> {
    let answered = () => {};
    const finished = new Promise<void>((resolve) => (answered = resolve));
    this.inFlight.set(msg, { subject, started: process.hrtime.bigint(), answered, finished });
    // Every line logged while the request is served carries its request id (and the transaction it is for), and
    // nothing of whatever context the connection's callback happened to run in.
    const context = {
      requestId: msg.headers?.get(HEADERS.requestId) || undefined,
      correlationId: msg.headers?.get(HEADERS.correlationId) || undefined,
      subject,
    };
    await withLogContext(
      context,
      async () => {
        try {
          await this.serve(subject, msg);
        } catch (error) {
          // Not the handler's error (RpcErrorFilter answers those) but the transport's own: answered all the same.
          this.settings.logger.error({ err: error }, 'RPC request could not be served');
          this.respond(msg, INTERNAL_FAILURE);
        }
      },
      { fresh: true },
    );
  }

  /**
   * What ServerNats.handleMessage does for a request, with the handler's answer published as soon as it is known:
   * Nest's `send` would subscribe an RxJS pipeline to it and queue the reply on the next tick, a cost the quote path
   * paid on every request for nothing here (one reply per request, no streams). Errors the handler throws are turned
   * into the reply by RpcErrorFilter, which Nest applies inside `handler`.
   */
  private async serve(subject: string, msg: Msg): Promise<void> {
    const context = new NatsContext([msg.subject, msg.headers]);
    // RpcRequestDeserializer makes every message a request (with its reply inbox as the id).
    const message = (await this.deserializer.deserialize(msg.data, { channel: subject, replyTo: msg.reply })) as IncomingRequest;
    const publish = this.getPublisher(msg, message.id ?? '', context);
    const handler = this.handlers.get(subject);
    if (!handler) {
      publish({ id: message.id, err: INTERNAL_FAILURE });
      return;
    }
    const result: unknown = await handler(message.data, context);
    try {
      publish({ id: message.id, response: isObservable(result) ? await lastValueFrom(result, { defaultValue: undefined }) : result, isDisposed: true });
    } catch (error) {
      publish({ id: message.id, err: error, isDisposed: true });
    }
  }

  /** ServerNats's publisher, which also records the request as served (its metric and debug line) once answered. */
  override getPublisher(msg: Msg, id: string, context: NatsContext): (packet: OutgoingResponse) => void {
    const publish = super.getPublisher(msg, id, context) as (packet: OutgoingResponse) => void;
    return (packet) => {
      // One reply per request: Nest's closing packet after it, if any, has nothing to add.
      if (!this.inFlight.has(msg)) return;
      try {
        publish(packet);
        this.served(msg, packet.err === undefined ? 'ok' : isRpcFailure(packet.err) ? packet.err.error.code : INTERNAL_FAILURE.error.code);
      } catch (error) {
        // The connection is closed, or the reply is larger than NATS takes.
        this.settings.logger.error({ err: error }, 'RPC reply could not be sent');
        this.respond(msg, INTERNAL_FAILURE);
      }
    };
  }

  /** Stops taking requests and waits until every one in flight is answered; the service drains the connection later. */
  override async close(): Promise<void> {
    for (const subscription of this.subscribed.splice(0)) subscription.unsubscribe();
    await Promise.all([...this.inFlight.values()].map((request) => request.finished));
  }

  /** Connection status for Nest's `status` observable and the service's log (Nest's own logger is not the service's). */
  override async handleStatusUpdates(client: NatsConnection): Promise<void> {
    for await (const status of client.status()) {
      if (status.type === 'disconnect') {
        this._status$.next(NatsStatus.DISCONNECTED);
        this.settings.logger.warn({ server: status.data }, 'NATS connection lost; reconnecting');
      } else if (status.type === 'reconnecting') {
        this._status$.next(NatsStatus.RECONNECTING);
      } else if (status.type === 'reconnect') {
        this._status$.next(NatsStatus.CONNECTED);
        this.settings.logger.info({ server: status.data }, 'NATS connection restored');
      }
    }
  }

  private respond(msg: Msg, failure: RpcFailure): void {
    if (!this.inFlight.has(msg)) return;
    try {
      if (msg.reply) msg.respond(this.serializer.serialize({ id: msg.reply, err: failure }).data as Uint8Array);
    } catch {
      // Nothing more can be sent: the caller's timeout tells it the outcome is unknown.
    }
    this.served(msg, failure.error.code);
  }

  private served(msg: Msg, outcome: string): void {
    const request = this.inFlight.get(msg);
    if (!request) return;
    this.inFlight.delete(msg);
    const seconds = secondsSince(request.started);
    this.settings.metrics?.rpcServerSeconds.observe({ subject: request.subject, outcome }, seconds);
    this.settings.logger.debug({ outcome, durationMs: Math.round(seconds * 10_000) / 10 }, 'request served');
    request.answered();
  }
}
