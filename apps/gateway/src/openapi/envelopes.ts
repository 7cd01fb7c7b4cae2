import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_CODES, ERROR_REASON_NAMES, ERROR_REASONS, type ErrorReason } from '@ramp/contracts';

/** A catalogue as a markdown list for a description: each name with its meaning (and code, for error reasons). */
export function catalogue(entries: Readonly<Record<string, string | { code: string; description: string }>>): string {
  return Object.entries(entries)
    .map(([name, entry]) => (typeof entry === 'string' ? `- \`${name}\`: ${entry}` : `- \`${name}\` (${entry.code}): ${entry.description}`))
    .join('\n');
}

export class ErrorBodySchema {
  @ApiProperty({ enum: ERROR_CODES, example: 'INVALID_REQUEST' })
  code!: string;
  @ApiProperty({
    enum: ERROR_REASON_NAMES,
    description: `The precise cause, stable for programs to branch on; each reason always comes with the same code. New reasons may be added within /v1 (treat an unknown one by its code).\n\n${catalogue(ERROR_REASONS)}`,
    example: 'INVALID_FIELD',
  })
  reason!: ErrorReason;
  @ApiProperty({ example: 'amount: must be greater than zero' })
  message!: string;
  @ApiPropertyOptional({ description: 'The request field at fault (INVALID_REQUEST).', example: 'amount' })
  field?: string;
}

export class ErrorEnvelopeSchema {
  @ApiProperty({ enum: [false] })
  success!: false;
  @ApiProperty({ type: ErrorBodySchema })
  error!: ErrorBodySchema;
}

export class PaginationMetaSchema {
  @ApiProperty({ example: 1 }) page!: number;
  @ApiProperty({ example: 20 }) limit!: number;
  @ApiProperty({ example: 57 }) total!: number;
  @ApiProperty({ example: 3 }) totalPages!: number;
}

/** What each error code means on this API, with an example of its envelope, for the OpenAPI responses. */
export const ERROR_DESCRIPTIONS = {
  INVALID_REQUEST: {
    status: 400,
    description: 'A field is missing or invalid; `error.field` names it and the message states the rule.',
    example: { code: 'INVALID_REQUEST', reason: 'INVALID_FIELD', message: 'amount: must be greater than zero', field: 'amount' },
  },
  UNAUTHORIZED: {
    status: 401,
    description: 'The x-api-key header is missing, unknown or revoked.',
    example: { code: 'UNAUTHORIZED', reason: 'API_KEY_MISSING', message: 'The x-api-key header is missing' },
  },
  FORBIDDEN: {
    status: 403,
    description: "Plain HTTP, an address outside the key's IP allowlist, or a live key before live mode is enabled.",
    example: { code: 'FORBIDDEN', reason: 'HTTPS_REQUIRED', message: 'HTTPS is required; requests over plain HTTP are refused' },
  },
  NOT_FOUND: {
    status: 404,
    description: "The resource does not exist for this API key (another tenant's ids are not found either).",
    example: { code: 'NOT_FOUND', reason: 'TRANSACTION_NOT_FOUND', message: 'Transaction txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V was not found' },
  },
  CONFLICT: {
    status: 409,
    description: 'The Idempotency-Key was reused with another body, or the quote was already used.',
    example: {
      code: 'CONFLICT',
      reason: 'IDEMPOTENCY_KEY_REUSED',
      message: 'This Idempotency-Key was already used with a different request; use a new key for a new request',
    },
  },
  RATE_LIMITED: {
    status: 429,
    description: 'Too many requests; the message and Retry-After give the seconds to wait.',
    example: { code: 'RATE_LIMITED', reason: 'RATE_LIMIT_EXCEEDED', message: 'Rate limit exceeded; retry in 12 seconds' },
  },
  INTERNAL_ERROR: {
    status: 500,
    description: 'An unexpected fault; nothing was applied. Retry with the same Idempotency-Key, quoting x-request-id to support if it persists.',
    example: { code: 'INTERNAL_ERROR', reason: 'INTERNAL_ERROR', message: 'An internal error occurred; it has been logged.' },
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    description: 'A service is down or slow; retry with exponential backoff.',
    example: {
      code: 'SERVICE_UNAVAILABLE',
      reason: 'SERVICE_UNAVAILABLE',
      message: 'The ramp service did not answer in time; retry with exponential backoff.',
    },
  },
} as const;

export type DocumentedError = keyof typeof ERROR_DESCRIPTIONS;
