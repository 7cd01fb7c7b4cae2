/** SQLSTATE classes and codes of a database that is unreachable, restarting, overloaded, or asking for a retry. */
const TRANSIENT_SQLSTATE = /^(08|53|57P0[1-3]|40001|40P01|55P03)/;
const TRANSIENT_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const TRANSIENT_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|not queryable|the database system is (starting up|shutting down)/i;

/**
 * An error of PostgreSQL or NATS being down, restarting or overloaded (or another service answering
 * SERVICE_UNAVAILABLE), not of the work at hand: an event consumer retries it rather than dead-letter the event, and a
 * request handler answers SERVICE_UNAVAILABLE rather than INTERNAL_ERROR (it is an outage to wait out, not a bug).
 */
export function isInfrastructureError(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (
    typeof code === 'string' &&
    (TRANSIENT_SQLSTATE.test(code) || TRANSIENT_SOCKET.has(code) || code === 'TIMEOUT' || code === '503' || code === 'SERVICE_UNAVAILABLE')
  )
    return true;
  return typeof message === 'string' && TRANSIENT_MESSAGE.test(message);
}
