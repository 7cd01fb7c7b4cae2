import pino, { type Logger } from 'pino';
import { currentLogContext } from '@ramp/observability';

export type { Logger } from 'pino';

/**
 * Structured JSON logs on stdout, one line per event, with the service name on every line and the ids of the work in
 * progress (request id, correlation id, event id: see withLogContext) on every line written during it. An operator
 * command whose standard output is its JSON answer logs to standard error instead (`fd` 2).
 */
export function createLogger(service: string, level: string, fd: 1 | 2 = 1): Logger {
  const options = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    mixin: () => ({ ...currentLogContext() }),
    redact: { paths: ['apiKey', 'apiSecret', 'secret', 'headers["x-api-key"]', 'req.headers["x-api-key"]'], censor: '[redacted]' },
  };
  return fd === 1 ? pino(options) : pino(options, pino.destination({ fd, sync: true }));
}
