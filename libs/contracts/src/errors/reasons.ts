import type { ErrorCode } from './codes';

/**
 * The catalogue of `error.reason` values: stable UPPER_SNAKE names an integrator's program can branch on, each under
 * the one `error.code` it always comes with. New reasons may be added within /v1; none is renamed or removed
 * (see docs/versioning.md). docs/api/errors.md (`npm run docs:errors`) and the OpenAPI document are generated from
 * this table.
 */
export const ERROR_REASONS = {
  // INVALID_REQUEST (400; 413 for BODY_TOO_LARGE)
  INVALID_FIELD: {
    code: 'INVALID_REQUEST',
    description: 'A field, parameter or header is missing or breaks a rule; `error.field` names it and the message states the rule.',
  },
  MALFORMED_REQUEST: {
    code: 'INVALID_REQUEST',
    description: 'The request cannot be read: the body is not a JSON object, the content type is not JSON, or the path or HTTP is malformed.',
  },
  BODY_TOO_LARGE: { code: 'INVALID_REQUEST', description: 'The body is larger than the accepted limit (HTTP 413).' },
  UNKNOWN_BANK: { code: 'INVALID_REQUEST', description: '`bankCode` is not a Nigerian bank of GET /onramp/banks.' },
  INVALID_CHECK_DIGIT: {
    code: 'INVALID_REQUEST',
    description: '`accountNumber` fails the CBN NUBAN check digit for the bank: a typo, or the account is at another bank.',
  },
  ACCOUNT_NOT_FOUND: { code: 'INVALID_REQUEST', description: 'The bank has no account with this number.' },
  AMOUNT_TOO_SMALL: { code: 'INVALID_REQUEST', description: "The amount is below the token's minimum, or too small to pay its fees." },
  AMOUNT_TOO_LARGE: { code: 'INVALID_REQUEST', description: "The amount is above the token's maximum." },
  UNSUPPORTED_CHAIN: { code: 'INVALID_REQUEST', description: 'The chain is not one this operation accepts.' },
  UNSUPPORTED_TOKEN: { code: 'INVALID_REQUEST', description: 'The token is not available on the chain, or not for this operation (see GET /transfer/chains).' },
  NO_ROUTE: { code: 'INVALID_REQUEST', description: 'No route exists between these tokens and chains.' },
  INVALID_ADDRESS: { code: 'INVALID_REQUEST', description: 'An address is not a valid address of its chain.' },
  CHAIN_MISMATCH: { code: 'INVALID_REQUEST', description: "The wallet is on another chain than the quote's." },
  INSUFFICIENT_BALANCE: { code: 'INVALID_REQUEST', description: "The wallet's available balance is below the amount." },
  QUOTE_EXPIRED: { code: 'INVALID_REQUEST', description: 'The quote has expired (quotes live 5 minutes): request a new one.' },
  QUOTE_KIND_MISMATCH: { code: 'INVALID_REQUEST', description: 'The quote is of another kind (an off-ramp quote given to a swap, say).' },
  WEBHOOK_LIMIT_REACHED: { code: 'INVALID_REQUEST', description: 'The tenant has 10 webhooks already: delete one first.' },
  WEBHOOK_TARGET_REFUSED: {
    code: 'INVALID_REQUEST',
    description:
      'The webhook or callback URL is refused: not https, credentials or a fragment in it, a name that does not resolve, or a private, loopback or internal address.',
  },
  // UNAUTHORIZED (401)
  API_KEY_MISSING: { code: 'UNAUTHORIZED', description: 'No `x-api-key` header.' },
  API_KEY_INVALID: { code: 'UNAUTHORIZED', description: 'The API key is unknown or revoked.' },
  PARTNER_SIGNATURE_INVALID: {
    code: 'UNAUTHORIZED',
    description: "A bank partner's event (`/partners/.../webhook`, not an integrator's route) whose signature is missing or wrong: nothing is recorded.",
  },
  // FORBIDDEN (403)
  HTTPS_REQUIRED: { code: 'FORBIDDEN', description: 'The request came over plain HTTP.' },
  IP_NOT_ALLOWED: { code: 'FORBIDDEN', description: "The client address is outside the key's IP allowlist." },
  LIVE_MODE_DISABLED: {
    code: 'FORBIDDEN',
    description:
      'A live key, asking for what has no live provider on this platform yet (live mode off, or the message names what is missing: a bank partner, a price source, routes): use a test key.',
  },
  // NOT_FOUND (404): another tenant's ids are not found either
  ROUTE_NOT_FOUND: { code: 'NOT_FOUND', description: 'No such route (or method) under /v1.' },
  TRANSACTION_NOT_FOUND: { code: 'NOT_FOUND', description: 'No such transaction for this key (or not of the type the path names).' },
  WALLET_NOT_FOUND: { code: 'NOT_FOUND', description: 'No such wallet for this key.' },
  QUOTE_NOT_FOUND: { code: 'NOT_FOUND', description: 'No such quote for this key.' },
  WEBHOOK_NOT_FOUND: { code: 'NOT_FOUND', description: 'No such webhook for this key.' },
  DELIVERY_NOT_FOUND: { code: 'NOT_FOUND', description: 'No such delivery of this webhook.' },
  SANDBOX_ONLY: { code: 'NOT_FOUND', description: 'A sandbox route called with a live key.' },
  RESOURCE_NOT_FOUND: { code: 'NOT_FOUND', description: 'Something the request refers to does not exist.' },
  // CONFLICT (409)
  QUOTE_ALREADY_USED: { code: 'CONFLICT', description: 'The quote was used by another initiation: quotes are single-use.' },
  IDEMPOTENCY_KEY_REUSED: { code: 'CONFLICT', description: 'The Idempotency-Key was used with another request: use a new key for a new request.' },
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    code: 'CONFLICT',
    description: 'A request with this Idempotency-Key is still running or its outcome is unknown: look the result up, or retry in a minute.',
  },
  TRANSACTION_STATE_CONFLICT: {
    code: 'CONFLICT',
    description: 'The transaction is past the point where this can happen, or was changed concurrently: read it and retry if it still applies.',
  },
  // RATE_LIMITED (429)
  RATE_LIMIT_EXCEEDED: { code: 'RATE_LIMITED', description: 'Too many requests: wait the seconds of Retry-After.' },
  // INTERNAL_ERROR (500) and SERVICE_UNAVAILABLE (503)
  INTERNAL_ERROR: {
    code: 'INTERNAL_ERROR',
    description: 'An unexpected fault, logged: retry with the same Idempotency-Key, quoting x-request-id to support if it persists.',
  },
  SERVICE_UNAVAILABLE: {
    code: 'SERVICE_UNAVAILABLE',
    description: 'A service or a dependency is down or slow: retry with exponential backoff (with Retry-After, nothing ran).',
  },
  INSUFFICIENT_LIQUIDITY: {
    code: 'SERVICE_UNAVAILABLE',
    description:
      "The platform's inventory on the chain cannot cover this quote now (a live on-ramp's CNGN comes from the treasury): ask for a smaller amount, or again later.",
  },
  PRICE_DEVIATION: {
    code: 'SERVICE_UNAVAILABLE',
    description:
      "A pool the trade would go through is priced too far from the market, or a live chain's pool from its own recent average (someone just moved it), or a live chain's pool cannot be judged now (no average over the least span yet, or its node lags): no quote is given from it; ask again in a moment.",
  },
} as const satisfies Record<string, { code: ErrorCode; description: string }>;

export type ErrorReason = keyof typeof ERROR_REASONS;

export const ERROR_REASON_NAMES = Object.keys(ERROR_REASONS) as ErrorReason[];

/** The reason an error of `code` carries when nothing more precise is known (an old peer, a framework error). */
export const GENERIC_REASON_OF: Readonly<Record<ErrorCode, ErrorReason>> = {
  INVALID_REQUEST: 'INVALID_FIELD',
  UNAUTHORIZED: 'API_KEY_INVALID',
  FORBIDDEN: 'HTTPS_REQUIRED',
  NOT_FOUND: 'RESOURCE_NOT_FOUND',
  CONFLICT: 'TRANSACTION_STATE_CONFLICT',
  RATE_LIMITED: 'RATE_LIMIT_EXCEEDED',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
};

export function isErrorReason(value: unknown): value is ErrorReason {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_REASONS, value);
}

/**
 * Why a transaction failed (`failureReason` beside `errorMessage`, on the Transaction and in its failed event):
 * stable names to branch on, like `error.reason`.
 */
export const FAILURE_REASONS = {
  INSUFFICIENT_BALANCE: 'The wallet could not be debited: its available balance no longer covered the amount when the transaction started.',
  DEPOSIT_EXPIRED: 'No deposit reached the deposit address before it expired.',
  DEPOSIT_AMOUNT_MISMATCH: 'The deposit was not the quoted amount; it is sent back to the sender.',
  DEPOSIT_REVERSED: 'A reorganisation of the chain removed the deposit before the payout: it never arrived, so nothing is paid and nothing is sent back.',
  PAYMENT_EXPIRED: "No NGN payment reached the on-ramp's virtual account before it expired.",
  PAYMENT_AMOUNT_MISMATCH: 'The NGN payment was not the expected amount; it is refunded to the payer.',
  SWAP_FAILED: 'A swap found no route or liquidity and did not run; what was taken is given back.',
  INSUFFICIENT_LIQUIDITY:
    "A live on-ramp's payment arrived when the treasury's free inventory no longer covered what it had to spend (others took it since the quote): nothing was sent, and the Naira is refunded.",
  SLIPPAGE_EXCEEDED: 'The price moved beyond the slippage tolerance: the swap would have given less than its minimum; everything is given back.',
  BRIDGE_FAILED: 'The bridge did not deliver (not filled before its deadline); the deposit was refunded and everything is given back.',
  PAYOUT_REJECTED: 'The beneficiary bank rejected the NGN payout; the tokens are given back.',
  DECLINED_IN_REVIEW:
    "The transaction was above the platform's review threshold and an operator declined it before any money left: what was taken is given back (the Naira refunded, the tokens sent back).",
  TRANSACTION_FAILED: 'Any other failure; `errorMessage` says what happened.',
} as const;

export type FailureReason = keyof typeof FAILURE_REASONS;

export const FAILURE_REASON_NAMES = Object.keys(FAILURE_REASONS) as FailureReason[];
