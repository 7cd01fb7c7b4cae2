import { HttpException } from '@nestjs/common';
import { AppError, HTTP_STATUS_OF, type ErrorEnvelope, type ErrorReason } from '@ramp/contracts';
import { isInfrastructureError } from '@ramp/messaging';

export interface ErrorResponse {
  status: number;
  body: ErrorEnvelope;
}

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
  validation?: unknown;
}

/**
 * The one place where anything thrown while serving HTTP becomes the envelope. AppErrors keep their code and message;
 * framework errors get a precise, safe message; everything else is INTERNAL_ERROR with no detail.
 */
export function toErrorResponse(error: unknown, method: string, url: string): ErrorResponse {
  if (error instanceof AppError) return { status: HTTP_STATUS_OF[error.code], body: { success: false, error: error.toBody() } };
  const framework = frameworkError(error, method, url);
  if (framework) return framework;
  // PostgreSQL (keys, idempotency) or NATS down or restarting: an outage to retry after, not a bug.
  if (isInfrastructureError(error))
    return respond(503, 'SERVICE_UNAVAILABLE', 'The gateway could not reach its database or broker; retry with exponential backoff.');
  return respond(500, 'INTERNAL_ERROR', 'An internal error occurred; it has been logged. Retry later.');
}

/** True for errors that mean "the client did something wrong" (not worth an error-level log line). */
export function isExpected(response: ErrorResponse): boolean {
  return response.status < 500;
}

function frameworkError(error: unknown, method: string, url: string): ErrorResponse | undefined {
  const path = url.split('?')[0];
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status === 404) return respond(404, 'ROUTE_NOT_FOUND', `Route ${method} ${path} was not found`);
    if (status === 405) return respond(404, 'ROUTE_NOT_FOUND', `Route ${method} ${path} was not found`);
    if (status === 413) return respond(413, 'BODY_TOO_LARGE', 'body: is larger than the accepted limit', 'body');
    if (status === 415) return respond(400, 'MALFORMED_REQUEST', 'body: must be JSON, sent with Content-Type: application/json', 'body');
    if (status === 400) return respond(400, 'MALFORMED_REQUEST', 'body: is not valid JSON', 'body');
    if (status > 400 && status < 500) return respond(400, 'MALFORMED_REQUEST', 'The request is malformed');
    return undefined;
  }
  const fastify = error as FastifyLikeError;
  switch (fastify?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return respond(413, 'BODY_TOO_LARGE', 'body: is larger than the accepted limit', 'body');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return respond(400, 'MALFORMED_REQUEST', 'body: must be JSON, sent with Content-Type: application/json', 'body');
    case 'FST_ERR_BAD_URL':
      return respond(400, 'MALFORMED_REQUEST', 'path: is not a valid URL (a malformed %-escape)', 'path');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return respond(400, 'MALFORMED_REQUEST', 'path: has an id longer than 100 characters', 'path');
    case 'FST_ERR_CTP_INVALID_TYPE':
      return respond(400, 'MALFORMED_REQUEST', 'body: is not valid JSON', 'body');
    default:
      break;
  }
  if (fastify?.statusCode === 404) return respond(404, 'ROUTE_NOT_FOUND', `Route ${method} ${path} was not found`);
  if (typeof fastify?.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    return respond(400, 'MALFORMED_REQUEST', 'The request is malformed');
  }
  return undefined;
}

function respond(status: number, reason: ErrorReason, message: string, field?: string): ErrorResponse {
  return { status, body: { success: false, error: new AppError(reason, message, field).toBody() } };
}
