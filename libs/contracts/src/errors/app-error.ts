/** Error codes of the response envelope: the spec's four plus the ones DESIGN.md §4 adds. */
export const ERROR_CODES = [
  'INVALID_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The one mapping from error code to HTTP status, used by the gateway's error filter. */
export const HTTP_STATUS_OF: Readonly<Record<ErrorCode, number>> = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

/** The error object of the envelope: `{ success: false, error: ErrorBody }`. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  /** The request field at fault, for INVALID_REQUEST. */
  field?: string;
}

/**
 * A typed, expected failure: it crosses NATS as data and becomes the envelope at the gateway.
 * Anything thrown that is not an AppError is a bug and is reported as INTERNAL_ERROR without its message.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'AppError';
  }

  toBody(): ErrorBody {
    return this.field === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, field: this.field };
  }

  static fromBody(body: ErrorBody): AppError {
    return new AppError(body.code, body.message, body.field);
  }
}

/** INVALID_REQUEST naming the field and the rule it broke: `amount: must be greater than zero`. */
export function invalidField(field: string, rule: string): AppError {
  return new AppError('INVALID_REQUEST', `${field}: ${rule}`, field);
}

export function notFound(message: string): AppError {
  return new AppError('NOT_FOUND', message);
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}
