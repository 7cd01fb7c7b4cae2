import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiParam, ApiProperty, ApiPropertyOptional, ApiQuery } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  DELIVERY_STATUSES,
  WEBHOOK_EVENT_NAMES,
  WebhookCreate,
  WebhookDelete,
  WebhookDeliveries,
  WebhookList,
  WebhookRetry,
  WebhookTest,
} from '@ramp/contracts';
import { BodyPipe, NoFieldsRequest, OptionalString, queryParameters, RequiredString, RequiredStringArray } from '../edge/validation';
import { Forwarder, type ForwardOptions } from '../forwarding/forwarder';
import { ApiEndpoint } from '../openapi/api-endpoint';

const EVENT_NAMES = [...WEBHOOK_EVENT_NAMES, '*'];

export class WebhookCreateRequest implements WebhookCreate.Request {
  @ApiProperty({
    description:
      'HTTPS URL with a valid certificate that receives POST requests: a public host name that resolves. Credentials or a fragment in the URL, and hosts that are or resolve to loopback, private, link-local, carrier-grade NAT or metadata addresses, are refused.',
    example: 'https://example.com/hooks/ramp',
  })
  @RequiredString(2048)
  url!: string;
  @ApiProperty({ type: [String], enum: EVENT_NAMES, description: 'Event names, or `*` for every event.', example: ['offramp.completed', 'offramp.failed'] })
  @RequiredStringArray(EVENT_NAMES.length, 40)
  events!: string[];
  @ApiPropertyOptional({ description: 'Your note (at most 500 characters).', example: 'Payouts service' }) @OptionalString(500) description?: string;
}

export class WebhookSchema {
  @ApiProperty({ example: 'wh_01JD7X3Q9Z8K4M2N6P5R7S9T1V' }) id!: string;
  @ApiProperty({ example: 'https://example.com/hooks/ramp' }) url!: string;
  @ApiProperty({ type: [String], example: ['offramp.completed', 'offramp.failed'] }) events!: string[];
  @ApiProperty({ example: true }) isActive!: boolean;
  @ApiPropertyOptional({ type: String, example: 'Payouts service' }) description?: string;
  @ApiProperty({ example: '2026-11-23T10:00:00.000Z' }) createdAt!: string;
}

export class WebhookCreatedSchema extends WebhookSchema {
  @ApiProperty({
    description: "Signs this webhook's deliveries (x-service-signature, webhook-signature). Returned only here: store it.",
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/0Bc4Mr7j8c=',
  })
  secret!: string;
}

export class WebhookDeletedSchema {
  @ApiProperty({ example: 'wh_01JD7X3Q9Z8K4M2N6P5R7S9T1V' }) id!: string;
  @ApiProperty({ enum: [true] }) deleted!: boolean;
}

export class DeliveryAttemptSchema {
  @ApiProperty({ example: 1 }) attempt!: number;
  @ApiProperty({ example: '2026-11-23T10:00:01.000Z' }) at!: string;
  @ApiPropertyOptional({ type: Number, description: 'Absent when no answer came (timeout, refused connection, TLS error).', example: 500 }) statusCode?: number;
  @ApiProperty({ example: 84 }) durationMs!: number;
  @ApiPropertyOptional({ type: String, example: 'HTTP 500: upstream unavailable' }) error?: string;
}

export class DeliverySchema {
  @ApiProperty({ example: 'dlv_01JD7X3Q9Z8K4M2N6P5R7S9T1V' }) id!: string;
  @ApiProperty({ example: 'wh_01JD7X3Q9Z8K4M2N6P5R7S9T1V' }) webhookId!: string;
  @ApiProperty({ example: 'offramp.completed' }) event!: string;
  @ApiProperty({ description: 'x-service-event-id of the delivery.', example: '5f0c6c1e-3b9b-4a53-9d61-1f1a3c0b8e7d' }) eventId!: string;
  @ApiPropertyOptional({ type: String, example: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V' }) transactionId?: string;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status!: string;
  @ApiProperty({ type: [DeliveryAttemptSchema] }) attempts!: DeliveryAttemptSchema[];
  @ApiPropertyOptional({ type: String, description: 'When the next attempt is due (pending only).', example: '2026-11-23T10:01:01.000Z' })
  nextAttemptAt?: string;
  @ApiProperty({ example: '2026-11-23T10:00:00.000Z' }) createdAt!: string;
  @ApiProperty({ example: '2026-11-23T10:00:01.000Z' }) updatedAt!: string;
}

/** Webhooks are not provider calls: live keys may manage them before live mode is enabled. */
const READ: ForwardOptions = { status: 200, needsProviders: false };

@Controller()
export class WebhooksHttpController {
  constructor(@Inject(Forwarder) private readonly forwarder: Forwarder) {}

  @Post('webhooks')
  @ApiEndpoint({
    operationId: 'createWebhook',
    tag: 'Webhooks',
    summary: 'Register a webhook',
    description:
      'Subscribes `url` to `events` (or `*`). Answers the webhook with its `secret` (`whsec_…`), shown only here: store it to verify deliveries (see the Webhooks tag). ' +
      'At most 10 per API key. INVALID_REQUEST on `url`: not https://, credentials or a fragment, a host that does not resolve or that is or resolves to a loopback, private or metadata address; on `events`: an unknown name; and the eleventh webhook.',
    status: 201,
    data: WebhookCreatedSchema,
    errors: ['INVALID_REQUEST'],
    idempotent: true,
  })
  async create(@Body(BodyPipe) body: WebhookCreateRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.forwarder.post(WebhookCreate.contract, request, reply, body, { status: 201, needsProviders: false, sealedFields: ['secret'] });
  }

  @Get('webhooks')
  @ApiEndpoint({
    operationId: 'listWebhooks',
    tag: 'Webhooks',
    summary: 'List your webhooks (never their secrets)',
    description:
      'Every webhook of your API key (keys of one organization and environment share them), without secrets: a lost secret means deleting the webhook and registering it again.',
    status: 200,
    data: [WebhookSchema],
    errors: [],
  })
  async list(@Req() request: FastifyRequest) {
    return this.forwarder.get(WebhookList.contract, request, {}, READ);
  }

  @Delete('webhooks/:webhookId')
  @HttpCode(200)
  @ApiParam({ name: 'webhookId', example: 'wh_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @ApiEndpoint({
    operationId: 'deleteWebhook',
    tag: 'Webhooks',
    summary: 'Delete a webhook',
    description:
      "It receives nothing more: its pending deliveries are cancelled (one already being sent may still arrive). Answers `{ id, deleted: true }`. NOT_FOUND for an unknown, deleted or another API key's webhook.",
    status: 200,
    data: WebhookDeletedSchema,
    errors: ['NOT_FOUND'],
  })
  async delete(@Param('webhookId') webhookId: string, @Req() request: FastifyRequest) {
    return this.forwarder.get(WebhookDelete.contract, request, { webhookId }, READ);
  }

  @Get('webhooks/:webhookId/deliveries')
  @ApiParam({ name: 'webhookId', example: 'wh_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @ApiQuery({ name: 'status', required: false, enum: DELIVERY_STATUSES })
  @ApiQuery({ name: 'page', required: false, type: Number, description: 'From 1 (default 1).', example: 1 })
  @ApiQuery({ name: 'limit', required: false, type: Number, description: '1 to 100 (default 20).', example: 20 })
  @ApiEndpoint({
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: "List a webhook's deliveries with every attempt, newest first",
    description:
      "Each delivery with its status (pending, succeeded, failed, cancelled), every attempt (when, the answer's status code, duration, error) and when the next attempt is due, optionally filtered by `status`. " +
      'INVALID_REQUEST names an invalid filter, page or limit; NOT_FOUND: an unknown webhook.',
    status: 200,
    data: [DeliverySchema],
    errors: ['INVALID_REQUEST', 'NOT_FOUND'],
    paginated: true,
  })
  async deliveries(@Param('webhookId') webhookId: string, @Query() query: Record<string, unknown>, @Req() request: FastifyRequest) {
    const filters: WebhookDeliveries.Request = { webhookId, ...queryParameters(query, ['status', 'page', 'limit']) };
    return this.forwarder.list(WebhookDeliveries.contract, request, filters, READ);
  }

  @Post('webhooks/:webhookId/deliveries/:deliveryId/retry')
  @ApiParam({ name: 'webhookId', example: 'wh_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @ApiParam({ name: 'deliveryId', example: 'dlv_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @ApiEndpoint({
    operationId: 'retryWebhookDelivery',
    tag: 'Webhooks',
    summary: 'Resend one delivery now',
    description:
      'A pending delivery is brought forward; a succeeded or failed one gets one more attempt (failed again if it fails). The body is empty (`{}` or nothing). Answers the delivery. NOT_FOUND: an unknown webhook, or a delivery that is not its own.',
    status: 200,
    data: DeliverySchema,
    errors: ['INVALID_REQUEST', 'NOT_FOUND'],
    idempotent: true,
  })
  async retry(
    @Param('webhookId') webhookId: string,
    @Param('deliveryId') deliveryId: string,
    @Body(BodyPipe) _body: NoFieldsRequest,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.forwarder.post(WebhookRetry.contract, request, reply, { webhookId, deliveryId }, READ);
  }

  @Post('webhooks/:webhookId/test')
  @ApiParam({ name: 'webhookId', example: 'wh_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @ApiEndpoint({
    operationId: 'testWebhook',
    tag: 'Webhooks',
    summary: 'Send a signed test event to this webhook',
    description:
      'To check your receiver: queues a delivery to this webhook only, answered 201 with the delivery (follow it with the deliveries list). The body sent is `{ event: "webhook.test", timestamp, data: { webhookId, message, metadata: { test: true } } }`, signed and retried like any delivery.',
    status: 201,
    data: DeliverySchema,
    errors: ['INVALID_REQUEST', 'NOT_FOUND'],
    idempotent: true,
  })
  async test(
    @Param('webhookId') webhookId: string,
    @Body(BodyPipe) _body: NoFieldsRequest,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.forwarder.post(WebhookTest.contract, request, reply, { webhookId }, { status: 201, needsProviders: false });
  }
}
