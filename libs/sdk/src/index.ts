export { RampClient, type RampClientOptions } from './client';
export {
  AuthenticationError,
  ConflictError,
  InternalServerError,
  InvalidRequestError,
  InvalidResponseError,
  NotFoundError,
  PermissionError,
  RampConnectionError,
  RampError,
  RateLimitError,
  ServiceUnavailableError,
  type RampErrorCode,
} from './errors';
export { isFinished, WaitTimeoutError, type WaitOptions } from './polling';
export { SANDBOX_BANK_ACCOUNTS, type SandboxAccountBehaviour, type SandboxBankAccount } from './sandbox';
export { backoffDelay, DEFAULT_RETRY, isRetryable, parseRetryAfter, retryDelay, type RetryOptions } from './retry';
export type { AttemptInfo, FetchLike, RequestOptions, ResponseInfo, RetryInfo } from './transport';
export * from './types';
export { SDK_VERSION } from './version';
export {
  constructWebhookEvent,
  SIGNATURE_HEADER,
  verifyStandardWebhook,
  verifyWebhookSignature,
  WebhookVerificationError,
  type RawBody,
  type StandardWebhookHeaders,
  type StandardWebhookOptions,
  type OfframpWebhookEvent,
  type WalletWebhookEvent,
  type WebhookEvent,
  type WebhookEventName,
  type WebhookTestEvent,
} from './webhooks';
export type { components, operations, paths } from './generated/openapi';
