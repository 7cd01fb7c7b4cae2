import { JSONCodec, type Msg, type NatsConnection, type Subscription } from 'nats';
import { AppError, HEADERS, type RequestOf, type ResponseOf, type RpcContract, type RpcReply, type Tenant } from '@ramp/contracts';
import { secondsSince, withLogContext, type Metrics } from '@ramp/observability';
import { isInfrastructureError } from './outage';
import { NothingRan } from './rpc-client';

const codec = JSONCodec<unknown>();

export interface RpcContext {
  tenant: Tenant;
  requestId: string | undefined;
}

export type RpcHandlerFn<C extends RpcContract<unknown, unknown>> = (data: RequestOf<C>, context: RpcContext) => Promise<ResponseOf<C>>;

export interface RpcLogger {
  error(object: object, message: string): void;
  warn?(object: object, message: string): void;
  debug?(object: object, message: string): void;
}

/**
 * Serves request/reply subjects in a queue group, so replicas of a service share the work.
 * Expected failures (AppError) travel back as data; anything else is logged here and answered INTERNAL_ERROR
 * without its message, so no internal detail ever reaches a client.
 */
export class RpcServer {
  private readonly subscriptions: Subscription[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly queue: string,
    private readonly logger: RpcLogger,
    private readonly metrics?: Metrics,
  ) {}

  handle<C extends RpcContract<unknown, unknown>>(contract: C, handler: RpcHandlerFn<C>): void {
    const subscription = this.nc.subscribe(contract.subject, {
      queue: this.queue,
      callback: (error, msg) => {
        if (error) {
          this.logger.error({ err: error, subject: contract.subject }, 'subscription error');
          return;
        }
        // Every line logged while the request is served carries its request id (and the transaction it is for).
        const requestId = msg.headers?.get(HEADERS.requestId) || undefined;
        const correlationId = msg.headers?.get(HEADERS.correlationId) || undefined;
        const work = withLogContext({ requestId, correlationId, subject: contract.subject }, () => this.serve(contract, handler, msg, requestId), { fresh: true }).finally(() =>
          this.inFlight.delete(work),
        );
        this.inFlight.add(work);
      },
    });
    this.subscriptions.push(subscription);
  }

  /** Stops taking requests and waits for the ones in flight (graceful shutdown). */
  async close(): Promise<void> {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    await Promise.allSettled([...this.inFlight]);
  }

  private async serve<C extends RpcContract<unknown, unknown>>(contract: C, handler: RpcHandlerFn<C>, msg: Msg, requestId: string | undefined): Promise<void> {
    const started = process.hrtime.bigint();
    let reply: RpcReply<unknown>;
    try {
      const request = codec.decode(msg.data) as { tenant?: Tenant; data?: unknown };
      if (!request || typeof request !== 'object' || !request.tenant) throw new Error('malformed RPC request');
      const context: RpcContext = { tenant: request.tenant, requestId };
      reply = { ok: true, data: await handler((request.data ?? {}) as RequestOf<C>, context) };
    } catch (error) {
      if (error instanceof NothingRan) {
        reply = { ok: false, error: error.toBody(), notRun: true };
      } else if (error instanceof AppError) {
        reply = { ok: false, error: error.toBody() };
      } else if (isInfrastructureError(error)) {
        // A dependency down or restarting (PostgreSQL, NATS, a provider's endpoint), or a transaction PostgreSQL asked to
        // retry: an outage to wait out, not a bug. Whether anything was done is unknown (a commit may have gone
        // through), so the reply is not marked notRun.
        this.logger.warn?.({ err: error }, 'RPC handler met an outage');
        reply = { ok: false, error: { code: 'SERVICE_UNAVAILABLE', message: `The ${this.queue} service is briefly unable to complete the request; retry with exponential backoff.` } };
      } else {
        this.logger.error({ err: error }, 'RPC handler failed');
        reply = { ok: false, error: { code: 'INTERNAL_ERROR', message: 'An internal error occurred; it has been logged.' } };
      }
    }
    if (msg.reply) msg.respond(codec.encode(reply));
    const outcome = reply.ok ? 'ok' : reply.error.code;
    const seconds = secondsSince(started);
    this.metrics?.rpcServerSeconds.observe({ subject: contract.subject, outcome }, seconds);
    this.logger.debug?.({ outcome, durationMs: Math.round(seconds * 10_000) / 10 }, 'request served');
  }
}
