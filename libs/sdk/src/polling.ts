import { sleep } from './transport';
import type { Transaction } from './types';

export interface WaitOptions {
  /** Between two reads. Default 1 s. */
  intervalMs?: number;
  /** Give up after this long with a WaitTimeoutError. Default 5 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** When to stop; default: the status is `completed` or `failed`. */
  until?: (transaction: Transaction) => boolean;
}

/** A transaction did not reach the awaited state in time; `transaction` is the last one read. */
export class WaitTimeoutError extends Error {
  constructor(
    message: string,
    readonly transaction: Transaction,
  ) {
    super(message);
    this.name = 'WaitTimeoutError';
  }
}

export function isFinished(transaction: Transaction): boolean {
  return transaction.status === 'completed' || transaction.status === 'failed';
}

/**
 * Reads a transaction until `until` holds and returns it. A failed transaction is returned, not thrown: check
 * `status` (and `errorMessage`). Errors of a read (after the client's own retries) are thrown.
 */
export async function waitForTransaction(read: () => Promise<Transaction>, options: WaitOptions = {}): Promise<Transaction> {
  const { intervalMs = 1000, timeoutMs = 300_000, until = isFinished } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const transaction = await read();
    if (until(transaction)) return transaction;
    if (Date.now() + intervalMs > deadline) {
      throw new WaitTimeoutError(`Transaction ${transaction.id} is still ${transaction.status} after ${timeoutMs} ms`, transaction);
    }
    await sleep(intervalMs, options.signal);
  }
}
