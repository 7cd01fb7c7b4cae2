import { Body, Controller, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsDefined } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FaucetSend, newId, RelayerPause, sandboxOnly, type Environment } from '@ramp/contracts';
import { KeyStore } from '@ramp/keys';
import { RpcClient } from '@ramp/messaging';
import { BodyPipe, NoFieldsRequest, RequiredString } from '../edge/validation';
import { Forwarder } from '../forwarding/forwarder';
import { IdempotencyStore } from '../forwarding/idempotency-store';
import { ApiEndpoint } from '../openapi/api-endpoint';
import { SANDBOX_CHAIN_TIMEOUT_MS } from '../wallets/wallets.http.controller';

export class SandboxResetSchema {
  @ApiProperty({ enum: [true] }) reset!: boolean;
  @ApiProperty({ enum: ['test'] satisfies Environment[] }) environment!: string;
  @ApiProperty({ description: 'When the new, empty sandbox began.', format: 'date-time', example: '2026-11-23T10:00:00.000Z' }) resetAt!: string;
}

export class FaucetRequest {
  @ApiProperty({
    description: 'A chain whose `settlement` is `onchain` for test keys in GET /transfer/chains, and which has a faucet (the local test chains).',
    example: 'base',
  })
  @RequiredString(20)
  chain!: string;
  @ApiProperty({
    description: 'Any address of the chain: yours, to act as an end user with your own wallet.',
    example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  })
  @RequiredString(100)
  address!: string;
  @ApiProperty({ description: 'A token of the chain, or its native coin.', example: 'USDC' }) @RequiredString(20) tokenSymbol!: string;
  @ApiProperty({
    description: "At most the faucet's limit per request: 1,000,000 USDC or USDT, 1,000,000,000 CNGN, 100 cbBTC, 100 ETH, 1,000 BNB.",
    example: '1000',
  })
  @RequiredString(60)
  amount!: string;
}

export class FaucetSchema {
  @ApiProperty({ example: 'base' }) chain!: string;
  @ApiProperty({ example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }) address!: string;
  @ApiProperty({ example: 'USDC' }) tokenSymbol!: string;
  @ApiProperty({ example: '1000' }) amount!: string;
  @ApiProperty({
    description: "The faucet's transaction on the test chain (a mint of the test token, or a transfer of the coin).",
    example: '0x4f1e1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8',
  })
  transactionHash!: string;
}

export class RelayerRequest {
  @ApiProperty({
    description:
      "`true` holds the relayer's fills of your organization's bridge deposits; `false` lets it fill them again (those still before their deadline too).",
    example: true,
  })
  @IsDefined({ message: 'is required' })
  @IsBoolean({ message: 'must be true or false' })
  paused!: boolean;
}

export class RelayerSchema {
  @ApiProperty({ description: "Whether the relayer holds your organization's fills now.", example: true }) paused!: boolean;
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
    @Inject(RpcClient) private readonly rpc: RpcClient,
  ) {}

  @Post('faucet')
  @ApiEndpoint({
    operationId: 'sandboxFaucet',
    tag: 'Sandbox',
    summary: 'Sandbox: test tokens to any address of a test chain',
    description:
      'Test keys only (a live key gets NOT_FOUND). The faucet of a local test chain sends `amount` of `tokenSymbol` to `address` (a mint of the test token, or a transfer of the native coin) and answers with the `transactionHash` once it is broadcast, ' +
      'so that you can act as an end user with your own wallet: send the tokens to a deposit address with viem or `cast send`. With an `Idempotency-Key`, a retry is the same transfer. ' +
      "INVALID_REQUEST names the field: a chain without a faucet (UNSUPPORTED_CHAIN), an invalid address (INVALID_ADDRESS), a token the chain does not have (UNSUPPORTED_TOKEN), an amount above the faucet's limit (AMOUNT_TOO_LARGE).",
    status: 200,
    data: FaucetSchema,
    errors: ['INVALID_REQUEST', 'NOT_FOUND', 'SERVICE_UNAVAILABLE'],
    idempotent: true,
  })
  async faucet(@Body(BodyPipe) body: FaucetRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    sandboxOnly(request.ctx.key?.tenant.environment);
    await this.forwarder.idempotent(request, reply, { status: 200, needsProviders: false }, async (tenant, key) => {
      const data = FaucetSend.signed(
        await this.rpc.call(
          FaucetSend.contract,
          tenant,
          { ...body, idempotencyKey: key ?? newId('evt') },
          { requestId: request.ctx.requestId, timeoutMs: SANDBOX_CHAIN_TIMEOUT_MS },
        ),
      );
      return { success: true as const, data };
    });
  }

  @Post('relayer')
  @ApiEndpoint({
    operationId: 'sandboxRelayer',
    tag: 'Sandbox',
    summary: 'Sandbox: hold or release the bridge relayer for your transactions',
    description:
      "Test keys only (a live key gets NOT_FOUND). Routes between the local test chains bridge by intent: a deposit into the source chain's pool, filled on the destination chain by the platform's relayer before a fill deadline. " +
      "With `paused: true`, the relayer fills none of your organization's deposits, so their deadline passes: each is refunded on its source chain, and its swap or transfer fails with `BRIDGE_FAILED` after giving back what it took. " +
      "`paused: false` releases it. The switch is your organization's alone and stays as set until changed (a sandbox reset does not change it); setting it again to the same value is harmless.",
    status: 200,
    data: RelayerSchema,
    errors: ['INVALID_REQUEST', 'NOT_FOUND', 'SERVICE_UNAVAILABLE'],
    idempotent: true,
  })
  async relayer(@Body(BodyPipe) body: RelayerRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    sandboxOnly(request.ctx.key?.tenant.environment);
    await this.forwarder.idempotent(request, reply, { status: 200, needsProviders: false }, async (tenant) => {
      const data = await this.rpc.call(
        RelayerPause.contract,
        tenant,
        { environment: 'test', organizationId: tenant.organizationId, paused: body.paused },
        { requestId: request.ctx.requestId },
      );
      return { success: true as const, data };
    });
  }

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
      sandboxOnly(tenant.environment);
      const { resetAt } = await this.keys.resetSandbox(tenant.organizationId);
      await this.idempotency.forgetAll(tenant, key);
      return { success: true as const, data: { reset: true, environment: 'test', resetAt } };
    });
  }
}
