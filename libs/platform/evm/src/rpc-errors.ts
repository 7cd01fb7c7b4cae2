import {
  BaseError,
  ContractFunctionRevertedError,
  ExecutionRevertedError,
  HttpRequestError,
  InsufficientFundsError,
  RpcRequestError,
  TimeoutError,
} from 'viem';

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

/**
 * Whether a request failed the way a node fails (so another node may answer it): unreachable, timed out, an HTTP
 * error status (a rate limit's 429 among them), or the JSON-RPC errors of a node in trouble (-32005 limit exceeded,
 * -32603 internal error). A revert or a refused transaction is the chain's answer: the same on any node.
 */
export function isNodeFailure(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  // viem maps a JSON-RPC error to its own classes (InternalRpcError, LimitExceededRpcError...), each with the code.
  return Boolean(
    error.walk(
      (cause) =>
        cause instanceof HttpRequestError ||
        cause instanceof TimeoutError ||
        (cause instanceof RpcRequestError && typeof cause.status === 'number' && (cause.status === 429 || cause.status >= 500)) ||
        NODE_FAILURE_CODES.includes((cause as { code?: unknown }).code as number),
    ),
  );
}

/** JSON-RPC codes of a node in trouble: -32603 internal error, -32005 limit exceeded, -32007 and 429 a provider's rate limit. */
const NODE_FAILURE_CODES: readonly number[] = [-32603, -32005, -32007, 429];
