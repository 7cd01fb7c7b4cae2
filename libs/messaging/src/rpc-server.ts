import { JSONCodec, type Msg, type NatsConnection, type Subscription } from 'nats';
import { AppError, HEADERS, type RequestOf, type ResponseOf, type RpcContract, type RpcReply, type Tenant } from '@ramp/contracts';

const codec = JSONCodec<unknown>();

export interface RpcContext {
  tenant: Tenant;
  requestId: string | undefined;
}

export type RpcHandlerFn<C extends RpcContract<unknown, unknown>> = (data: RequestOf<C>, context: RpcContext) => Promise<ResponseOf<C>>;

export interface RpcLogger {
  error(object: object, message: string): void;
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
  ) {}

  handle<C extends RpcContract<unknown, unknown>>(contract: C, handler: RpcHandlerFn<C>): void {
    const subscription = this.nc.subscribe(contract.subject, {
      queue: this.queue,
      callback: (error, msg) => {
        if (error) {
          this.logger.error({ err: error, subject: contract.subject }, 'subscription error');
          return;
        }
        const work = this.serve(contract, handler, msg).finally(() => this.inFlight.delete(work));
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

  private async serve<C extends RpcContract<unknown, unknown>>(contract: C, handler: RpcHandlerFn<C>, msg: Msg): Promise<void> {
    let reply: RpcReply<unknown>;
    try {
      const request = codec.decode(msg.data) as { tenant?: Tenant; data?: unknown };
      if (!request || typeof request !== 'object' || !request.tenant) throw new Error('malformed RPC request');
      const context: RpcContext = { tenant: request.tenant, requestId: msg.headers?.get(HEADERS.requestId) || undefined };
      reply = { ok: true, data: await handler((request.data ?? {}) as RequestOf<C>, context) };
    } catch (error) {
      if (error instanceof AppError) {
        reply = { ok: false, error: error.toBody() };
      } else {
        this.logger.error({ err: error, subject: contract.subject, requestId: msg.headers?.get(HEADERS.requestId) }, 'RPC handler failed');
        reply = { ok: false, error: { code: 'INTERNAL_ERROR', message: 'An internal error occurred; it has been logged.' } };
      }
    }
    if (msg.reply) msg.respond(codec.encode(reply));
  }
}
