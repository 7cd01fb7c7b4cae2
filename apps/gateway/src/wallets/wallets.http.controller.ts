import { Body, Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiParam, ApiProperty, ApiPropertyOptional, ApiQuery } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PRIMARY_CHAINS } from '@ramp/chains';
import { sandboxOnly, WalletCreate, WalletFund, WalletGet, WalletList } from '@ramp/contracts';
import { BodyPipe, OptionalString, queryParameters, RequiredString } from '../edge/validation';
import { Forwarder, type ForwardOptions } from '../forwarding/forwarder';
import { ApiEndpoint } from '../openapi/api-endpoint';
import { spelled } from '../openapi/wording';

export class WalletCreateRequest implements WalletCreate.Request {
  @ApiProperty({ enum: PRIMARY_CHAINS, example: 'base' }) @RequiredString(20) chain!: string;
  @ApiPropertyOptional({ description: 'Your name for the wallet (at most 100 characters).', example: 'Treasury' }) @OptionalString(100) label?: string;
}

export class WalletFundRequest implements Omit<WalletFund.Request, 'walletId'> {
  @ApiProperty({ description: "A token of the wallet's chain.", example: 'USDC' }) @RequiredString(20) tokenSymbol!: string;
  @ApiProperty({ description: "A positive decimal string with at most the token's decimals.", example: '250' }) @RequiredString(60) amount!: string;
}

export class WalletBalanceSchema {
  @ApiProperty({ example: 'USDC' }) tokenSymbol!: string;
  @ApiProperty({ description: 'Spendable now.', example: '250' }) available!: string;
  @ApiProperty({ description: 'Reserved for transactions in flight; returns to available if they fail.', example: '0' }) held!: string;
}

export class WalletSchema {
  @ApiProperty({ example: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V' }) walletId!: string;
  @ApiProperty({ enum: PRIMARY_CHAINS }) chain!: string;
  @ApiProperty({
    description: "The smart account's address (EIP-55), the same for the wallet's whole life.",
    example: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  })
  address!: string;
  @ApiPropertyOptional({ type: String, example: 'Treasury' }) label?: string;
  @ApiProperty({ type: [WalletBalanceSchema], description: "Every token of the wallet's chain." }) balances!: WalletBalanceSchema[];
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' }) createdAt!: string;
}

export class WalletFundSchema extends WalletSchema {
  @ApiPropertyOptional({
    description: "The faucet's transfer to the wallet's address, on the wallet's test chain (absent for a chain without a node, which is credited directly).",
    example: '0x4f1e1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8',
  })
  transactionHash?: string;
}

/** Sandbox operations that wait for a test chain: a transfer sent and confirmed, and the deposit credited. */
export const SANDBOX_CHAIN_TIMEOUT_MS = 30_000;

/** Managed wallets need the smart-account provider: live keys wait for live mode like the other provider routes. */
const READ: ForwardOptions = { status: 200, needsProviders: true };
const CREATE: ForwardOptions = { status: 201, needsProviders: true };

@Controller()
export class WalletsHttpController {
  constructor(@Inject(Forwarder) private readonly forwarder: Forwarder) {}

  @Post('wallets')
  @ApiEndpoint({
    operationId: 'createWallet',
    tag: 'Wallets',
    summary: 'Create a managed wallet',
    description:
      `A gas-sponsored smart account on \`chain\` (${spelled(PRIMARY_CHAINS)}), with a \`label\` of yours. Its address is the CREATE2 address of the smart account, known before any deployment and fixed for the wallet's life. ` +
      `Answers the wallet with every token of its chain at zero. INVALID_REQUEST names the field: a chain other than ${spelled(PRIMARY_CHAINS)}, a label over 100 characters. ` +
      'A live key is refused with FORBIDDEN (LIVE_MODE_DISABLED) on a chain the platform runs no live chain for: an address it does not watch would lose what is sent there.',
    status: 201,
    data: WalletSchema,
    errors: ['INVALID_REQUEST'],
    idempotent: true,
  })
  async create(@Body(BodyPipe) body: WalletCreateRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.forwarder.post(WalletCreate.contract, request, reply, body, CREATE);
  }

  @Get('wallets')
  @ApiQuery({ name: 'page', required: false, type: Number, description: 'From 1 (default 1).', example: 1 })
  @ApiQuery({ name: 'limit', required: false, type: Number, description: '1 to 100 (default 20).', example: 20 })
  @ApiEndpoint({
    operationId: 'listWallets',
    tag: 'Wallets',
    summary: 'List your managed wallets, newest first',
    description:
      'The wallets of your API key with their balances, in the list envelope (`data` and `meta`). INVALID_REQUEST names a page or limit out of range, or a parameter it does not take.',
    status: 200,
    data: [WalletSchema],
    errors: ['INVALID_REQUEST'],
    paginated: true,
  })
  async list(@Query() query: Record<string, unknown>, @Req() request: FastifyRequest) {
    return this.forwarder.list(WalletList.contract, request, queryParameters(query, ['page', 'limit']), READ);
  }

  @Get('wallets/:walletId')
  @ApiParam({ name: 'walletId', example: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @ApiEndpoint({
    operationId: 'getWallet',
    tag: 'Wallets',
    summary: 'A managed wallet with its balances',
    description:
      "Every token of the wallet's chain with `available` (spendable) and `held` (reserved for transactions in flight). NOT_FOUND for an unknown id or another API key's wallet.",
    status: 200,
    data: WalletSchema,
    errors: ['NOT_FOUND'],
  })
  async get(@Param('walletId') walletId: string, @Req() request: FastifyRequest) {
    return this.forwarder.get(WalletGet.contract, request, { walletId }, READ);
  }

  @Post('sandbox/wallets/:walletId/fund')
  @ApiParam({ name: 'walletId', example: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @ApiEndpoint({
    operationId: 'sandboxFundWallet',
    tag: 'Sandbox',
    summary: "Sandbox: fund a managed wallet from the test chain's faucet",
    description:
      "Test keys only (a live key gets NOT_FOUND). The test chain's faucet sends `amount` of `tokenSymbol` to the wallet's `address` (a real transfer), and this answers once the deposit is credited: the wallet with its balances and the transfer's `transactionHash`. " +
      "The flows that debit a wallet (custodial off-ramps, swaps, transfers) can then be tried. INVALID_REQUEST names the field: a token the wallet's chain does not have, an amount with more decimals than the token, or above the faucet's limit (AMOUNT_TOO_LARGE). NOT_FOUND: an unknown wallet. " +
      'SERVICE_UNAVAILABLE: the chain did not credit the transfer in time (it may still: read the wallet).',
    status: 200,
    data: WalletFundSchema,
    errors: ['INVALID_REQUEST', 'NOT_FOUND', 'SERVICE_UNAVAILABLE'],
    idempotent: true,
  })
  async fund(
    @Param('walletId') walletId: string,
    @Body(BodyPipe) body: WalletFundRequest,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    sandboxOnly(request.ctx.key?.tenant.environment);
    await this.forwarder.post(
      WalletFund.contract,
      request,
      reply,
      { walletId, ...body },
      { status: 200, needsProviders: false, timeoutMs: SANDBOX_CHAIN_TIMEOUT_MS },
    );
  }
}
