import { applyDecorators, Catch, UseFilters, type RpcExceptionFilter } from '@nestjs/common';
import { BaseRpcContext, EventPattern } from '@nestjs/microservices';
import type { JsMsg } from 'nats';
import type { PoolClient } from 'pg';
import { throwError, type Observable } from 'rxjs';
import type { EventMetadata, StoredEvent } from '@ramp/event-store';

/** The transport id of {@link JetStreamServer}: its handlers are `@EventPattern(pattern, JETSTREAM, options)`. */
export const JETSTREAM = Symbol('JETSTREAM');

/** What a handler needs of a message: an id (for the inbox), a type and the ids of its cause (for logs). */
export interface ConsumedEvent {
  eventId: string;
  type: string;
  metadata?: Partial<Pick<EventMetadata, 'correlationId' | 'causationId' | 'requestId'>>;
  /** When the event was appended (ISO 8601), for the handling-lag histogram. */
  createdAt?: string;
}

/** A JetStream handler's per-consumer settings, the third argument of its `@EventPattern`. */
export interface JetStreamHandlerOptions<E extends ConsumedEvent = StoredEvent> {
  /** Durable consumer name, shared by the service's replicas so that they share the work. */
  durable: string;
  /**
   * false for a handler that is idempotent by itself (a projection that checks stream versions, and is rebuilt by
   * replaying the stream, which an inbox would refuse). Default true: each event id goes into the service's inbox in
   * the transaction of the handler's effect, and a redelivery of an id already there is acknowledged unhandled.
   */
  inbox?: boolean;
  /**
   * Reads a message (default: the JSON of a StoredEvent). Throw for a message that can never be processed: it goes to
   * the dead-letter stream at once.
   */
  decode?: (message: JsMsg) => E;
  /**
   * Errors that will clear by themselves (a projection waiting for a stream's earlier event): retried with backoff
   * for as long as it takes, never dead-lettered. PostgreSQL or NATS being down or restarting
   * ({@link isInfrastructureError}) always counts as transient: an outage is no reason to give an event up.
   */
  isTransient?: (error: unknown) => boolean;
  /** Attempts before the event goes to the dead-letter stream (default 8). */
  maxAttempts?: number;
  /** Delay before attempt n+1, by n (the last value repeats). */
  backoffMs?: number[];
  /** How long a delivery may go unacknowledged before JetStream gives it to another replica (default 30 s). */
  ackWaitMs?: number;
  /**
   * Where the durable starts when it is first created: `all` (default) from the stream's first event; `new` from the
   * events appended after it, for a handler that only reacts to what happens now (a wake), which a stream kept for
   * ever would otherwise replay in full on its first deployment. Once created, a durable resumes where it stopped.
   */
  startAt?: 'all' | 'new';
  /**
   * The event types the handler acts on (default: every one). Any other is acknowledged as it arrives, without a
   * database transaction and without an inbox row, and counted `skipped`: a consumer of a whole stream that acts on a
   * few of its types costs nothing for the rest.
   */
  types?: readonly string[];
  /**
   * Events handled in one transaction when several are waiting (default 1). Throughput for handlers whose cost is the
   * commit; a batch that fails is handled again event by event, so one bad event never holds up the others.
   */
  batchSize?: number;
}

/** What a handler gets beside its event: the transaction its effect must be written in, and the message. */
export class JetStreamContext extends BaseRpcContext<[JsMsg, PoolClient, string]> {
  /** The PostgreSQL transaction that also records the event in the inbox; it commits before the event is acknowledged. */
  get tx(): PoolClient {
    return this.getArgByIndex(1);
  }

  get message(): JsMsg {
    return this.getArgByIndex(0);
  }

  /** The durable consumer that delivered the event. */
  get consumer(): string {
    return this.getArgByIndex(2);
  }
}

/**
 * Hands a handler's error to the transport as it was thrown. Nest's default filter for message handlers would log it
 * and replace it with `{ status: 'error' }`, which would hide an outage or a handler's transient error from the
 * retry rules.
 */
@Catch()
class KeepHandlerError implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}

/** Set on the options of handlers declared with {@link JetStreamEventPattern}; the transport binds only those. */
export const KEEPS_HANDLER_ERRORS = '__jetstreamKeepsHandlerErrors';

/**
 * `@EventPattern(pattern, JETSTREAM, options)` for a method of a `*.events.controller.ts`, with its errors kept for the
 * transport's retry rules. `pattern` is the subjects as production names them (`everyEventOf(rampEvents)`, i.e.
 * `events.ramp.>`): the transport finds the stream that carries them and adds EVENTS_NAMESPACE when it binds. The
 * method takes the decoded event (`@Payload()`) and a {@link JetStreamContext} (`@Ctx()`); throw to have it retried.
 */
export function JetStreamEventPattern<E extends ConsumedEvent = StoredEvent>(pattern: string, options: JetStreamHandlerOptions<E>): MethodDecorator {
  return applyDecorators(EventPattern(pattern, JETSTREAM, { ...options, [KEEPS_HANDLER_ERRORS]: true }), UseFilters(new KeepHandlerError()));
}
