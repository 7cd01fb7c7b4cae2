import { ClientNats, NatsRecordBuilder, type MsPattern, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { headers as natsHeaders, NatsError, type Msg, type MsgHdrs, type NatsConnection } from 'nats';
import { AppError, HEADERS, type RequestOf, type ResponseOf, type RpcContract, type RpcRequest, type Tenant } from '@ramp/contracts';
import { currentLogContext, secondsSince, type Metrics } from '@ramp/observability';
import { appErrorOf, unavailable } from './rpc-errors';
import { isRpcFailure, namespacedSubject, RpcReplyDeserializer, RpcRequestSerializer } from './rpc-wire';

/**
 * Nest's NATS client as the platform uses it: on the service's own connection, each subject under the namespace
 * (EVENTS_NAMESPACE), with the platform's envelope (rpc-wire.ts), a failed reply as the service's typed AppError, and
 * "no responders" (nobody subscribed) as an error at once rather than a wait for the timeout.
 */
export class NatsRpcClient extends ClientNats {
  /**
   * Nest's ClientNats on the service's own connection.
   */
  constructor(
    private readonly connection: NatsConnection,
    private readonly namespace = '',
    /** How long a request sent through `send` (the Observable API) waits for its reply; RpcClient gives its own. */
    private readonly requestTimeoutMs = 60_000,
  ) {
    super({ serializer: new RpcRequestSerializer(), deserializer: new RpcReplyDeserializer() });
  }

  /**
   * Sends through the connection's request/reply multiplexer (one inbox subscription for every request), where the
   * stock ClientNats subscribes and unsubscribes an inbox of its own per request: two more protocol operations for
   * each, which cost the quote path a fifth of its throughput. "No responders" arrives as the connection's 503 error.
   */
  override publish(partialPacket: ReadPacket, callback: (packet: WritePacket) => unknown): () => void {
    let open = true;
    try {
      const packet = this.assignPacketId(partialPacket);
      const serialized = this.serializer.serialize(packet) as { data: Uint8Array; headers?: MsgHdrs };
      const handle = this.createSubscriptionHandler(packet, (reply: WritePacket) => (open ? callback(reply) : undefined));
      this.natsClient!.request(this.normalizePattern(partialPacket.pattern), serialized.data, {
        timeout: this.requestTimeoutMs,
        headers: this.mergeHeaders(serialized.headers),
      }).then(
        (reply: Msg) => handle(null as unknown as NatsError, reply),
        (error: unknown) => (open ? callback({ err: error, isDisposed: true }) : undefined),
      );
    } catch (error) {
      callback({ err: error, isDisposed: true });
    }
    return () => {
      open = false;
    };
  }

  /**
   * One request, answered as a promise: the proxy's own serializer, subject and reply decoding, without the RxJS
   * Observable `send` builds around them (on the quote path that pipeline cost as much as the rest of the client). A
   * reply that never comes is the connection's TIMEOUT error after `timeoutMs`, "no responders" its 503 error at once,
   * and a failed reply the service's AppError.
   */
  async request<T>(pattern: string, data: unknown, timeoutMs: number): Promise<T> {
    const client = this.natsClient ?? (await this.connect());
    const packet = this.assignPacketId({ pattern, data });
    const serialized = this.serializer.serialize(packet) as { data: Uint8Array; headers?: MsgHdrs };
    const reply = await client.request(this.normalizePattern(pattern), serialized.data, { timeout: timeoutMs, headers: this.mergeHeaders(serialized.headers) });
    const answer = (await this.deserializer.deserialize(reply.data)) as WritePacket;
    if (answer.err !== undefined) throw this.serializeError(answer.err);
    return answer.response as T;
  }

  override createClient(): Promise<NatsConnection> {
    return Promise.resolve(this.connection);
  }

  /**
   * Nothing to track: the connection reconnects forever and holds what is sent meanwhile, so a request made during a
   * NATS restart is answered once it is back or times out, as any other (ClientNats would fail it at once).
   */
  override async handleStatusUpdates(): Promise<void> {}

  /** The connection is the service's: it drains it at shutdown, after the requests in flight. */
  override async close(): Promise<void> {
    this.natsClient = null;
    this.connectionPromise = null;
  }

  protected override normalizePattern(pattern: MsPattern): string {
    return namespacedSubject(this.namespace, super.normalizePattern(pattern));
  }

  protected override serializeError(err: unknown): unknown {
    return isRpcFailure(err) ? appErrorOf(err) : err;
  }
}

export interface CallOptions {
  requestId?: string;
  timeoutMs?: number;
}

/**
 * Calls a service by its contract (libs/contracts): the typed face of the ClientProxy. A service that is not there
 * (no responders) or does not answer in time is SERVICE_UNAVAILABLE within the timeout, never a hang; a typed error
 * from the service comes back as AppError.
 */
export class RpcClient {
  constructor(
    private readonly proxy: Pick<NatsRpcClient, 'request'>,
    private readonly defaultTimeoutMs: number,
    private readonly metrics?: Metrics,
  ) {}

  async call<C extends RpcContract<unknown, unknown>>(contract: C, tenant: Tenant, data: RequestOf<C>, options: CallOptions = {}): Promise<ResponseOf<C>> {
    const headers = natsHeaders();
    // The request id of the work in progress (an RPC being served, an event being handled) unless given.
    const context = currentLogContext();
    const requestId = options.requestId ?? context.requestId;
    if (requestId) headers.set(HEADERS.requestId, requestId);
    if (context.correlationId) headers.set(HEADERS.correlationId, context.correlationId);
    const request = new NatsRecordBuilder<RpcRequest<RequestOf<C>>>({ tenant, data }).setHeaders(headers).build();
    const started = process.hrtime.bigint();
    const observe = (outcome: string) => this.metrics?.rpcClientSeconds.observe({ subject: contract.subject, outcome }, secondsSince(started));
    try {
      const response = await this.proxy.request<ResponseOf<C>>(contract.subject, request, options.timeoutMs ?? this.defaultTimeoutMs);
      observe('ok');
      return response;
    } catch (error) {
      const failure = error instanceof AppError ? error : unavailable(contract.subject, error);
      observe(failure.code);
      throw failure;
    }
  }
}
