import { AsyncLocalStorage } from 'async_hooks';

/**
 * The ids that tie a log line to what caused it. `requestId` is the HTTP request's (`x-request-id`), carried to the
 * services in a NATS header and into event metadata; `correlationId` is the transaction's (the event metadata's), so
 * one query finds every line of a transaction in every service, from its request to its last webhook.
 */
export interface LogContext {
  requestId?: string;
  correlationId?: string;
  causationId?: string;
  eventId?: string;
  subject?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

/**
 * Runs `work` with `context` on every log line it writes, across its awaits: added over the current context, or in
 * place of it (`fresh`) where new work enters a service (a request served, an event handled, a job run), so that
 * nothing of whatever happened to be running before leaks into it.
 */
export function withLogContext<T>(context: LogContext, work: () => T, options: { fresh?: boolean } = {}): T {
  const merged = { ...(options.fresh ? {} : storage.getStore()), ...withoutUndefined(context) };
  return storage.run(merged, work);
}

/** The ids of the work in progress, for the logger's mixin (an empty object outside any). */
export function currentLogContext(): LogContext {
  return storage.getStore() ?? {};
}

function withoutUndefined(context: LogContext): LogContext {
  return Object.fromEntries(Object.entries(context).filter(([, value]) => value !== undefined && value !== '')) as LogContext;
}
