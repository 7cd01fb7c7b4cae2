import type { ApiErrorCode, ErrorReason } from './types';

/**
 * The codes a RampError can carry: the API's own (from the error envelope, or inferred from the HTTP status when a
 * proxy answered instead of the API), and two of the SDK's: NETWORK_ERROR (no response: refused, reset or timed out)
 * and INVALID_RESPONSE (a success status whose body is not the API's envelope).
 */
export type RampErrorCode = ApiErrorCode | 'NETWORK_ERROR' | 'INVALID_RESPONSE';

export interface RampErrorDetails {
  code: RampErrorCode;
  /** The API's `error.reason`; undefined when the answer was not the API's envelope (or no answer came). */
  reason?: ErrorReason;
  message: string;
  /** The HTTP status; undefined when no response arrived. */
  status?: number;
  /** The request field at fault (INVALID_REQUEST). */
  field?: string;
  /** The `x-request-id` of the response: quote it to support. */
  requestId?: string;
  /** Seconds to wait before trying again, from `Retry-After` (429, 503). */
  retryAfter?: number;
  /** The body as received when it was not the API's envelope (for example a proxy's HTML page), cut to 2 KiB. */
  rawBody?: string;
  cause?: unknown;
}

/** Every error the SDK throws for a request; `code` says what went wrong, the subclass says the same for `instanceof`. */
export class RampError extends Error {
  readonly code: RampErrorCode;
  /**
   * The precise cause from the API (`QUOTE_EXPIRED`, `INSUFFICIENT_BALANCE`, ...), to branch on; undefined when the
   * answer was not the API's envelope. A reason newer than this SDK still arrives here as its string.
   */
  readonly reason: ErrorReason | undefined;
  readonly status: number | undefined;
  readonly field: string | undefined;
  readonly requestId: string | undefined;
  readonly retryAfter: number | undefined;
  readonly rawBody: string | undefined;

  constructor(details: RampErrorDetails) {
    super(details.message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = details.code;
    this.reason = details.reason;
    this.status = details.status;
    this.field = details.field;
    this.requestId = details.requestId;
    this.retryAfter = details.retryAfter;
    this.rawBody = details.rawBody;
  }
}

/** 400: a field is missing or invalid; `field` names it. */
export class InvalidRequestError extends RampError {}
/** 401: the API key is missing, unknown or revoked. */
export class AuthenticationError extends RampError {}
/** 403: plain HTTP, an address outside the key's allowlist, or a live key before live mode. */
export class PermissionError extends RampError {}
/** 404: the resource does not exist for this API key. */
export class NotFoundError extends RampError {}
/** 409: the Idempotency-Key was reused with another body, or the quote was already used. */
export class ConflictError extends RampError {}
/** 429: too many requests; `retryAfter` gives the seconds to wait. */
export class RateLimitError extends RampError {}
/** 500: an unexpected fault on the platform's side. */
export class InternalServerError extends RampError {}
/** 503 (and a proxy's 502 or 504): a service is down or slow. */
export class ServiceUnavailableError extends RampError {}
/** No response arrived: the connection was refused, reset, or the request timed out. */
export class RampConnectionError extends RampError {}
/** A success status with a body that is not the API's envelope. */
export class InvalidResponseError extends RampError {}

const CLASSES: Record<RampErrorCode, new (details: RampErrorDetails) => RampError> = {
  INVALID_REQUEST: InvalidRequestError,
  UNAUTHORIZED: AuthenticationError,
  FORBIDDEN: PermissionError,
  NOT_FOUND: NotFoundError,
  CONFLICT: ConflictError,
  RATE_LIMITED: RateLimitError,
  INTERNAL_ERROR: InternalServerError,
  SERVICE_UNAVAILABLE: ServiceUnavailableError,
  NETWORK_ERROR: RampConnectionError,
  INVALID_RESPONSE: InvalidResponseError,
};

/** The error of its code's class (a code unknown to this version of the SDK gives a plain RampError). */
export function makeError(details: RampErrorDetails): RampError {
  const Class = Object.prototype.hasOwnProperty.call(CLASSES, details.code) ? CLASSES[details.code] : RampError;
  return new Class(details);
}

/** The API's code for a status, for responses that are not the API's envelope (a proxy, a load balancer). */
export function codeForStatus(status: number): ApiErrorCode {
  switch (status) {
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 429:
      return 'RATE_LIMITED';
    case 502:
    case 503:
    case 504:
      return 'SERVICE_UNAVAILABLE';
    default:
      return status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST';
  }
}

export interface ErrorResponse {
  status: number;
  statusText?: string;
  /** The body as text (it may not be JSON at all). */
  text: string;
  requestId?: string;
  retryAfter?: number;
}

/** The typed error of a non-2xx response: from the API's envelope when it is one, else from the status. */
export function errorFromResponse(response: ErrorResponse): RampError {
  const envelope = parseErrorEnvelope(response.text);
  const common = { status: response.status, requestId: response.requestId, retryAfter: response.retryAfter };
  if (envelope)
    return makeError({
      ...common,
      code: envelope.code as RampErrorCode,
      reason: envelope.reason as ErrorReason | undefined,
      message: envelope.message,
      field: envelope.field,
    });
  const rawBody = response.text.slice(0, 2048);
  const reason = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  return makeError({ ...common, code: codeForStatus(response.status), message: `HTTP ${reason} without the API's error envelope`, rawBody });
}

function parseErrorEnvelope(text: string): { code: string; reason?: string; message: string; field?: string } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || (body as { success?: unknown }).success !== false) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, reason, message, field } = error as { code?: unknown; reason?: unknown; message?: unknown; field?: unknown };
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  return { code, message, ...(typeof reason === 'string' ? { reason } : {}), ...(typeof field === 'string' ? { field } : {}) };
}
