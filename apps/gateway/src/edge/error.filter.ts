import { ArgumentsHost, Catch, Inject, type ExceptionFilter } from '@nestjs/common';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { LOGGER, type Logger } from '@ramp/service-kit';
import { isExpected, toErrorResponse } from './errors';

/** Sends the envelope for anything thrown, inside Nest (this filter) or in Fastify's hooks and parsers (sendError). */
export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply, logger: Logger): void {
  const response = toErrorResponse(error, request.method, request.url);
  if (!isExpected(response)) logger.error({ err: error, requestId: request.ctx?.requestId, url: request.url }, 'request failed');
  void reply.status(response.status).type('application/json; charset=utf-8').send(response.body);
}

@Catch()
export class ErrorFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(error, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), this.logger);
  }
}

export type { FastifyError };
