import type { HttpMethod } from './types';

/** How the client retries a request that failed in a way that may pass on a later attempt. */
export interface RetryOptions {
  /** Attempts in all, the first included (1: never retry). Default 3. */
  maxAttempts: number;
  /** The backoff before the first retry; it doubles on each retry. Default 500 ms. */
  baseDelayMs: number;
  /** The most the backoff grows to. Default 8 s. */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown at once. Default 60 s. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

/** What one attempt ended with: a response's status (and whether it said when to retry), or no response at all. */
export type AttemptOutcome = { status: number; retryAfter?: boolean } | { networkError: true };

/**
 * Whether an attempt's outcome is worth retrying:
 * - 429: the gateway refused the request before doing anything, so every method may retry;
 * - GET (safe to repeat): no response, 500, 502, 503, 504;
 * - POST: no response, 502 and 504 (a proxy's: the Idempotency-Key makes the gateway replay, hold or run it once),
 *   and 503 with Retry-After (the gateway sends it only when nothing ran). Never 500 or a 503 without Retry-After: the
 *   outcome is unknown, and the gateway holds the key up to a minute, so a retry could only answer CONFLICT; poll or
 *   list to learn what happened;
 * - never any other 4xx, and never a DELETE that may have taken effect (a repeat would answer NOT_FOUND).
 */
export function isRetryable(method: HttpMethod, outcome: AttemptOutcome): boolean {
  if ('networkError' in outcome) return method === 'get' || method === 'post';
  if (outcome.status === 429) return true;
  if (method === 'get') return [500, 502, 503, 504].includes(outcome.status);
  if (method === 'post') return outcome.status === 502 || outcome.status === 504 || (outcome.status === 503 && outcome.retryAfter === true);
  return false;
}

/**
 * `Retry-After` in milliseconds: delay-seconds (`"2"`) or an HTTP date; undefined when absent or unreadable.
 * A date in the past means "now" (0).
 */
export function parseRetryAfter(header: string | null | undefined, nowMs: number = Date.now()): number | undefined {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * The exponential backoff before retry number `retry` (1 for the first retry), with "equal jitter": half of
 * min(maxDelayMs, baseDelayMs × 2^(retry−1)) is fixed and the other half random, so clients that failed together
 * do not retry together. `random` is in [0, 1).
 */
export function backoffDelay(retry: number, options: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs'>, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * How long to wait before retry number `retry`, or undefined not to retry: the server's `Retry-After` when it gave
 * one (never less, and a little jitter on top so that waiting clients spread out), else the backoff.
 */
export function retryDelay(retry: number, retryAfterMs: number | undefined, options: RetryOptions, random: () => number = Math.random): number | undefined {
  if (retry >= options.maxAttempts) return undefined;
  if (retryAfterMs === undefined) return backoffDelay(retry, options, random);
  if (retryAfterMs > options.maxRetryAfterMs) return undefined;
  return retryAfterMs + Math.round(random() * Math.min(options.baseDelayMs, 1000) * 0.5);
}
