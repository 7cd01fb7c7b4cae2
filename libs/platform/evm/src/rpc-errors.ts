import { BaseError, ContractFunctionRevertedError, ExecutionRevertedError, InsufficientFundsError, RpcRequestError } from 'viem';

/**
 * Whether a failed call is the chain's answer that it would revert (an `execution reverted`, JSON-RPC code 3), the
 * only failure a send may be failed for. Anything else (the node unreachable, a timeout, a rate limit, a lagging node
 * behind a load balancer, an internal error) says nothing about the transaction and is retried.
 */
export function isRevert(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return Boolean(
    error.walk(
      (cause) =>
        cause instanceof ExecutionRevertedError ||
        cause instanceof ContractFunctionRevertedError ||
        (cause instanceof RpcRequestError && cause.code === 3) ||
        ((cause as { code?: unknown }).code === 3 && typeof (cause as { data?: unknown }).data === 'string'),
    ),
  );
}

export function isTransient(error: unknown): boolean {
  return !isRevert(error);
}

/**
 * Whether the node refused a transaction because its sender cannot pay for it (value plus gas): a state of the wallet
 * (waiting for a sweep or a top-up), not of the transaction, so the send waits rather than fails or blocks others.
 */
export function isInsufficientFunds(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return Boolean(error.walk((cause) => cause instanceof InsufficientFundsError || /insufficient funds/i.test((cause as { message?: string }).message ?? '')));
}
