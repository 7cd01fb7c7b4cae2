import { Body, Controller, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type Environment } from '@ramp/contracts';
import { KeyStore } from '@ramp/keys';
import { BodyPipe, NoFieldsRequest } from '../edge/validation';
import { Forwarder } from '../forwarding/forwarder';
import { IdempotencyStore } from '../forwarding/idempotency-store';
import { ApiEndpoint } from '../openapi/api-endpoint';

export class SandboxResetSchema {
  @ApiProperty({ enum: [true] }) reset!: boolean;
  @ApiProperty({ enum: ['test'] satisfies Environment[] }) environment!: string;
  @ApiProperty({ description: 'When the new, empty sandbox began.', format: 'date-time', example: '2026-11-23T10:00:00.000Z' }) resetAt!: string;
}

/**
 * POST /sandbox/reset: the caller's test environment starts empty. The gateway owns the keys, so the reset is a new
 * sandbox generation on the organization (every service scopes test data by it: wallets, balances, transactions,
 * webhooks and quotes of earlier generations are out of reach, while the event logs stay append-only), and the
 * gateway's own stored Idempotency-Key responses of the environment are forgotten.
 */
@Controller('sandbox')
export class SandboxHttpController {
  constructor(
    @Inject(KeyStore) private readonly keys: KeyStore,
    @Inject(IdempotencyStore) private readonly idempotency: IdempotencyStore,
    @Inject(Forwarder) private readonly forwarder: Forwarder,
  ) {}

  @Post('reset')
  @ApiEndpoint({
    operationId: 'sandboxReset',
    tag: 'Sandbox',
    summary: 'Empty your test environment',
    description:
      'Test keys only (a live key gets NOT_FOUND). Afterwards the test environment of your organization starts empty: no wallets (so no balances), no transactions in the lists or by id, ' +
      'no webhooks, no quotes, no stored Idempotency-Key responses. Transactions still in flight finish in the background and reach only their own `callbackUrl`. ' +
      'Every test key of the organization sees the empty environment as soon as this answers. The body is empty (`{}` or nothing); sent again with its `Idempotency-Key`, the reset is answered from the first one (it is the one stored response kept).',
    status: 200,
    data: SandboxResetSchema,
    errors: ['INVALID_REQUEST', 'NOT_FOUND'],
    idempotent: true,
  })
  async reset(@Body(BodyPipe) _body: NoFieldsRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.forwarder.idempotent(request, reply, { status: 200, needsProviders: false }, async (tenant, key) => {
      if (tenant.environment !== 'test') throw new AppError('SANDBOX_ONLY', 'Sandbox endpoints exist for test keys only');
      const { resetAt } = await this.keys.resetSandbox(tenant.organizationId);
      await this.idempotency.forgetAll(tenant, key);
      return { success: true as const, data: { reset: true, environment: 'test', resetAt } };
    });
  }
}
