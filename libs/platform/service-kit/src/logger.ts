import pino, { type Logger } from 'pino';
import { currentLogContext } from '@ramp/observability';

export type { Logger } from 'pino';

/**
 * Structured JSON logs on stdout, one line per event, with the service name on every line and the ids of the work in
 * progress (request id, correlation id, event id: see withLogContext) on every line written during it.
 */
export function createLogger(service: string, level: string): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: () => ({ ...currentLogContext() }),
    redact: { paths: ['apiKey', 'apiSecret', 'secret', 'headers["x-api-key"]', 'req.headers["x-api-key"]'], censor: '[redacted]' },
  });
}
