import { TimeoutError } from 'rxjs';
import { ErrorCode, NatsError } from 'nats';
import { AppError } from '@ramp/contracts';
import { isInfrastructureError } from './outage';
import { INTERNAL_FAILURE, type RpcFailure } from './rpc-wire';

/**
 * SERVICE_UNAVAILABLE when no service received the request (none is subscribed), or when the service that did
 * answered that it had done nothing (NothingRan): nothing ran, so the caller may send it again as it is. Any other
 * SERVICE_UNAVAILABLE (a timeout) leaves the outcome unknown: the service may have acted.
 */
export class ServiceNotReached extends AppError {}

/**
 * Thrown by a request handler that failed before doing anything: its reply is marked `notRun`, and the caller's
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

export interface RpcLogger {
  error(object: object, message: string): void;
  warn(object: object, message: string): void;
  info(object: object, message: string): void;
  debug(object: object, message: string): void;
}

/**
 * What a handler's error becomes on the wire, the one mapping of the request/reply transport. Expected failures
 * (AppError) travel back as they are; an outage is SERVICE_UNAVAILABLE; anything else is logged here and answered
 * INTERNAL_ERROR without its message, so no internal detail ever reaches a client.
 */
export function rpcFailureOf(error: unknown, service: string, logger: RpcLogger): RpcFailure {
  if (error instanceof NothingRan) return { ok: false, error: error.toBody(), notRun: true };
  if (error instanceof AppError) return { ok: false, error: error.toBody() };
  if (isInfrastructureError(error)) {
    // A dependency down or restarting (PostgreSQL, NATS, a provider's endpoint), or a transaction PostgreSQL asked to
    // retry: an outage to wait out, not a bug. Whether anything was done is unknown (a commit may have gone through),
    // so the reply is not marked notRun.
    logger.warn({ err: error }, 'RPC handler met an outage');
    return {
      ok: false,
      error: {
        code: 'SERVICE_UNAVAILABLE',
        reason: 'SERVICE_UNAVAILABLE',
        message: `The ${service} service is briefly unable to complete the request; retry with exponential backoff.`,
      },
    };
  }
  logger.error({ err: error }, 'RPC handler failed');
  return INTERNAL_FAILURE;
}

/** The caller's side of a failed reply: the service's typed error, or ServiceNotReached when it ran nothing. */
export function appErrorOf(failure: RpcFailure): AppError {
  if (failure.notRun && failure.error.code === 'SERVICE_UNAVAILABLE') return new ServiceNotReached('SERVICE_UNAVAILABLE', failure.error.message);
  return AppError.fromBody(failure.error);
}

/** A request that got no reply: nobody subscribed (ServiceNotReached), no answer in time, or NATS out of reach. */
export function unavailable(subject: string, error: unknown): AppError {
  const service = subject.split('.')[0];
  const noResponders = error instanceof NatsError && error.code === ErrorCode.NoResponders;
  const reason = noResponders
    ? 'is not running'
    : error instanceof TimeoutError || (error instanceof NatsError && error.code === ErrorCode.Timeout)
      ? 'did not answer in time'
      : 'could not be reached';
  const message = `The ${service} service ${reason}; retry with exponential backoff.`;
  return noResponders ? new ServiceNotReached('SERVICE_UNAVAILABLE', message) : new AppError('SERVICE_UNAVAILABLE', message);
}
