import { headers as natsHeaders, JSONCodec, NatsError, type NatsConnection } from 'nats';
import { AppError, HEADERS, type RequestOf, type ResponseOf, type RpcContract, type RpcReply, type Tenant } from '@ramp/contracts';
import { currentLogContext, secondsSince, type Metrics } from '@ramp/observability';

const codec = JSONCodec<unknown>();

export interface CallOptions {
  requestId?: string;
  timeoutMs?: number;
}

/**
 * Calls a service over NATS request/reply. A service that is not there (no responders) or does not answer in time
 * is SERVICE_UNAVAILABLE within the timeout, never a hang; a typed error from the service comes back as AppError.
 */
export class RpcClient {
  constructor(
    private readonly nc: NatsConnection,
    private readonly defaultTimeoutMs: number,
    private readonly metrics?: Metrics,
  ) {}

  async call<C extends RpcContract<unknown, unknown>>(
    contract: C,
    tenant: Tenant,
    data: RequestOf<C>,
    options: CallOptions = {},
  ): Promise<ResponseOf<C>> {
    const headers = natsHeaders();
    // The request id of the work in progress (an RPC being served, an event being handled) unless given.
    const context = currentLogContext();
    const requestId = options.requestId ?? context.requestId;
    if (requestId) headers.set(HEADERS.requestId, requestId);
    if (context.correlationId) headers.set(HEADERS.correlationId, context.correlationId);
    const started = process.hrtime.bigint();
    const observe = (outcome: string) => this.metrics?.rpcClientSeconds.observe({ subject: contract.subject, outcome }, secondsSince(started));
    let replyData: Uint8Array;
    try {
      const reply = await this.nc.request(contract.subject, codec.encode({ tenant, data }), {
        timeout: options.timeoutMs ?? this.defaultTimeoutMs,
        headers,
      });
      replyData = reply.data;
    } catch (error) {
      observe('SERVICE_UNAVAILABLE');
      throw unavailable(contract.subject, error);
    }
    const reply = codec.decode(replyData) as RpcReply<ResponseOf<C>>;
    observe(reply.ok ? 'ok' : reply.error.code);
    if (reply.ok) return reply.data;
    // The service did nothing (see NothingRan): for this caller it is as if the request had never been received.
    if (reply.notRun && reply.error.code === 'SERVICE_UNAVAILABLE') throw new ServiceNotReached('SERVICE_UNAVAILABLE', reply.error.message);
    throw AppError.fromBody(reply.error);
  }
}

/**
 * SERVICE_UNAVAILABLE when no service received the request (none is subscribed), or when the service that did
 * answered that it had done nothing (NothingRan): nothing ran, so the caller may send it again as it is. Any other
 * SERVICE_UNAVAILABLE (a timeout) leaves the outcome unknown: the service may have acted.
 */
export class ServiceNotReached extends AppError {}

/**
 * Thrown by a request handler that failed before doing anything: RpcServer marks its reply `notRun`, and the caller's
 * RpcClient throws ServiceNotReached, so that the gateway answers 503 with Retry-After and frees the Idempotency-Key.
 */
export class NothingRan extends AppError {
  constructor(message: string) {
    super('SERVICE_UNAVAILABLE', message);
  }
}

/**
 * Runs the part of a request handler that has no effect yet (reading a quote, a wallet): when a service it calls is
 * down or slow, nothing has been done, and the failure says so (NothingRan). Never wrap a call that changes anything.
 */
export async function beforeAnyEffect<T>(reads: () => Promise<T>): Promise<T> {
  try {
    return await reads();
  } catch (error) {
    if (error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE') throw new NothingRan(error.message);
    throw error;
  }
}

function unavailable(subject: string, error: unknown): AppError {
  const service = subject.split('.')[0];
  const reason =
    error instanceof NatsError && error.code === '503'
      ? 'is not running'
      : error instanceof NatsError && error.code === 'TIMEOUT'
        ? 'did not answer in time'
        : 'could not be reached';
  const message = `The ${service} service ${reason}; retry with exponential backoff.`;
  return error instanceof NatsError && error.code === '503' ? new ServiceNotReached('SERVICE_UNAVAILABLE', message) : new AppError('SERVICE_UNAVAILABLE', message);
}
