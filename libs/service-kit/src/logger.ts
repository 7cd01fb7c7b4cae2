import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/** Structured JSON logs on stdout, one line per event, with the service name on every line. */
export function createLogger(service: string, level: string): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: ['apiKey', 'apiSecret', 'secret', 'headers["x-api-key"]', 'req.headers["x-api-key"]'], censor: '[redacted]' },
  });
}
