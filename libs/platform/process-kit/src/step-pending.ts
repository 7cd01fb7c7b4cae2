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

/**
 * Asks `read` (an idempotent request: the same work every time) until `isFinal` accepts its answer, every 200 ms for at
 * most `waitMs` (0: once); then StepPending, described by `pending` from the last answer, so the job runs the step
 * again after `retryInMs`, or sooner when woken.
 */
export async function untilFinal<T>(read: () => Promise<T>, isFinal: (value: T) => boolean, waitMs: number, pending: (last: T) => string, retryInMs?: number): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const value = await read();
    if (isFinal(value)) return value;
    if (Date.now() >= deadline) throw new StepPending(pending(value), retryInMs);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
