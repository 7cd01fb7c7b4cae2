import { AppError } from '@ramp/contracts';

/**
 * A step whose work is under way elsewhere (a transaction on its way to its confirmation depth): not a failure. The job
 * worker runs the step again after `retryInMs`, without the backoff of a failure, and the step finds the same work by
 * its idempotency key.
 */
export class StepPending extends Error {
  constructor(
    message: string,
    readonly retryInMs = 1_000,
  ) {
    super(message);
    this.name = 'StepPending';
  }
}

const POLL_MS = 200;

/** A failing step waits at most this before it runs again. */
const FAILURE_RETRY_CAP_MS = 60_000;
/** A step that failed because a service it calls is down or restarting waits at most this: it comes back within seconds. */
const OUTAGE_RETRY_CAP_MS = 4_000;

/**
 * How long a step that failed for the `attempts`-th time in a row waits before it runs again: 250 ms doubled per
 * attempt, capped at a minute. When the failure is an outage (SERVICE_UNAVAILABLE: a service not running, not answering
 * in time, or saying it waits, as a restarting chain service does) the cap is 4 s, so that the transactions caught by
 * a restart go on within seconds of its return instead of sleeping out a backoff grown during it. Spread by up to a
 * quarter (`random`), so that the steps caught by one outage do not come back all at once.
 */
export function retryDelayMs(error: unknown, attempts: number, random: () => number = Math.random): number {
  const outage = error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE';
  const delay = Math.min(outage ? OUTAGE_RETRY_CAP_MS : FAILURE_RETRY_CAP_MS, 250 * 2 ** Math.min(attempts, 8));
  return Math.round(delay * (1 - random() / 4));
}

/**
 * Asks `read` (an idempotent request: the same work every time) until `isFinal` accepts its answer, every 200 ms for at
 * most `waitMs`; then StepPending, described by `pending` from the last answer, so the job runs the step again later.
 */
export async function untilFinal<T>(read: () => Promise<T>, isFinal: (value: T) => boolean, waitMs: number, pending: (last: T) => string): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const value = await read();
    if (isFinal(value)) return value;
    if (Date.now() >= deadline) throw new StepPending(pending(value));
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
