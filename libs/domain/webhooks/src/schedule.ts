/** The spec's retry delays, each counted from the failed attempt before it (Events, Delivery and retry). */
export const RETRY_DELAYS_MS: readonly number[] = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 24 * 3_600_000];

/** The first attempt and the five retries. */
export const MAX_ATTEMPTS = 1 + RETRY_DELAYS_MS.length;

export type AttemptOutcome = { status: 'succeeded' } | { status: 'pending'; nextAttemptAt: Date } | { status: 'failed' };

/**
 * What follows attempt number `attempt` (1-based) of a delivery, which finished at `finishedAt`. `maxAttempts` is
 * MAX_ATTEMPTS on the automatic schedule; a resend by hand allows one attempt more than were made.
 */
export function afterAttempt(attempt: number, succeeded: boolean, finishedAt: Date, maxAttempts = MAX_ATTEMPTS): AttemptOutcome {
  if (succeeded) return { status: 'succeeded' };
  if (attempt >= maxAttempts) return { status: 'failed' };
  const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1]!;
  return { status: 'pending', nextAttemptAt: new Date(finishedAt.getTime() + delay) };
}

/** Whether a receiver's HTTP status counts as delivered (2xx; redirects are not followed and count as failures). */
export const isDelivered = (statusCode: number | null | undefined): boolean =>
  statusCode !== null && statusCode !== undefined && statusCode >= 200 && statusCode < 300;
