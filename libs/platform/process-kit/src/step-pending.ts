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

/**
 * The answer of an idempotent request (the same work every time) when `isFinal` accepts it; otherwise StepPending,
 * described by `pending` from the answer, so that the job is released and runs the step again after `retryInMs`, or
 * sooner when woken (ChainSendWakes). The step never waits in its slot.
 */
export function finalOrPending<T>(answer: T, isFinal: (value: T) => boolean, pending: (value: T) => string, retryInMs?: number): T {
  if (isFinal(answer)) return answer;
  throw new StepPending(pending(answer), retryInMs);
}
