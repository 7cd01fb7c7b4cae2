import { BaseError, HttpRequestError, RpcRequestError, TimeoutError, WebSocketRequestError } from 'viem';

/**
 * Whether a failed RPC call says nothing about the transaction (the node could not be reached, timed out, or
 * failed internally) and is to be retried, rather than an answer (a revert) to act on.
 */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof BaseError)) return true;
  return Boolean(error.walk((cause) => cause instanceof HttpRequestError || cause instanceof TimeoutError || cause instanceof WebSocketRequestError || (cause instanceof RpcRequestError && cause.code === -32603)));
}
