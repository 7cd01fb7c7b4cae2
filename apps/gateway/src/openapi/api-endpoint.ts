import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiOperation, ApiResponse, ApiSecurity, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ERROR_DESCRIPTIONS, ErrorEnvelopeSchema, PaginationMetaSchema, type DocumentedError } from './envelopes';
import type { ApiTag } from './tags';

export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Policy': {
    description: 'Both limits of the key: `<per minute>;w=60, <burst>;w=1` (e.g. `60;w=60, 10;w=1`). The other X-RateLimit headers describe one of them.',
    schema: { type: 'string', example: '60;w=60, 10;w=1' },
  },
  'X-RateLimit-Limit': {
    description:
      'Requests allowed by the limit these headers describe, per its window: on a 429 the limit that refused the request; otherwise the tighter one (fewer requests left; the per-minute limit on a tie).',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': { description: 'Requests left under that limit; 0 on a 429.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Seconds until that limit is full again; on a 429, equal to Retry-After.', schema: { type: 'integer' } },
  'x-request-id': { description: 'The request id (echoed when the client sent one); quote it to support.', schema: { type: 'string' } },
};

export interface EndpointDoc {
  /** Stable and unique: SDK generators name methods after it, so it never follows a class or method rename. */
  operationId: string;
  /** The reference's group for the operation. */
  tag: ApiTag;
  summary: string;
  /** What the operation does, what it needs, and its notable errors. */
  description: string;
  status: number;
  /** The `data` schema: a class, or `[Class]` for an array. */
  data: Type<unknown> | [Type<unknown>];
  errors: DocumentedError[];
  idempotent?: boolean;
  /** A list with `meta` (PaginationMeta) beside `data`, and the page and limit query parameters. */
  paginated?: boolean;
}

/**
 * Documents an endpoint in one place: its envelope, every error with its status, and the headers. The errors the edge
 * can give on any route (key, HTTPS rule and allowlist, rate limit, internal, unavailable service) are always listed.
 */
export function ApiEndpoint(doc: EndpointDoc): MethodDecorator {
  const [item, isArray] = Array.isArray(doc.data) ? [doc.data[0], true] : [doc.data, false];
  const dataSchema = isArray ? { type: 'array', items: { $ref: getSchemaPath(item) } } : { $ref: getSchemaPath(item) };
  const decorators = [
    ApiOperation({ operationId: doc.operationId, summary: doc.summary, description: doc.description }),
    ApiTags(doc.tag),
    ApiSecurity('apiKey'),
    ApiExtraModels(item, ErrorEnvelopeSchema, PaginationMetaSchema),
    ApiHeader({ name: 'x-request-id', required: false, description: 'Your id for this request; echoed back and logged.' }),
    ApiResponse({
      status: doc.status,
      description: 'Success',
      headers: RATE_LIMIT_HEADERS,
      schema: doc.paginated
        ? {
            type: 'object',
            required: ['success', 'data', 'meta'],
            properties: { success: { type: 'boolean', enum: [true] }, data: dataSchema, meta: { $ref: getSchemaPath(PaginationMetaSchema) } },
          }
        : { type: 'object', required: ['success', 'data'], properties: { success: { type: 'boolean', enum: [true] }, data: dataSchema } },
    }),
    ...[
      ...doc.errors,
      ...(doc.idempotent ? ['CONFLICT' as const] : []),
      'UNAUTHORIZED' as const,
      'FORBIDDEN' as const,
      'RATE_LIMITED' as const,
      'INTERNAL_ERROR' as const,
      'SERVICE_UNAVAILABLE' as const,
    ]
      .filter((code, index, all) => all.indexOf(code) === index)
      .map((code) =>
        ApiResponse({
          status: ERROR_DESCRIPTIONS[code].status,
          description: `${code}: ${ERROR_DESCRIPTIONS[code].description}`,
          headers:
            code === 'RATE_LIMITED'
              ? { ...RATE_LIMIT_HEADERS, 'Retry-After': { description: 'Seconds to wait until both limits allow a request.', schema: { type: 'integer' } } }
              : RATE_LIMIT_HEADERS,
          type: ErrorEnvelopeSchema,
          example: { success: false, error: ERROR_DESCRIPTIONS[code].example },
        }),
      ),
  ];
  if (doc.idempotent) {
    decorators.push(
      ApiHeader({
        name: 'Idempotency-Key',
        required: false,
        description:
          'Any unique string (1-255 printable characters). The same key and body within 24 hours return the stored response; another body is 409 CONFLICT.',
      }),
    );
  }
  return applyDecorators(...decorators);
}
