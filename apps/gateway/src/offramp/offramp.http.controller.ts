import { Body, Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiParam, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OfframpInitiate, RampTransactionGet, SandboxDeposit, sandboxOnly, type TransactionStatus } from '@ramp/contracts';
import { BodyPipe, OptionalString, RequiredString } from '../edge/validation';
import { Forwarder, type ForwardOptions } from '../forwarding/forwarder';
import { ApiEndpoint } from '../openapi/api-endpoint';
import { TransactionSchema } from '../transactions/transaction.schema';

export class OfframpInitiateRequest implements OfframpInitiate.Request {
  @ApiProperty({ description: 'An off-ramp quote of yours that has not expired or been used.', example: 'qt_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @RequiredString(40)
  quoteId!: string;
  @ApiPropertyOptional({
    description: "Custodial: the managed wallet to debit (on the quote's chain). Give exactly one of walletId and sourceAddress.",
    example: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
  })
  @OptionalString(40)
  walletId?: string;
  @ApiPropertyOptional({
    description:
      "Non-custodial: the address the crypto comes from, valid for the quote's chain; the answer gives the depositAddress to send it to. Give exactly one of walletId and sourceAddress.",
    example: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  })
  @OptionalString(100)
  sourceAddress?: string;
  @ApiPropertyOptional({ description: 'Your reference, echoed back (at most 100 characters).', example: 'payout-7781' })
  @OptionalString(100)
  reference?: string;
  @ApiPropertyOptional({
    description: "Receives this transaction's events, signed with your API secret: an https:// URL of a public host.",
    example: 'https://example.com/hooks/ramp',
  })
  @OptionalString(2048)
  callbackUrl?: string;
}

/** The two ways to initiate: the properties' examples together would give both walletId and sourceAddress. */
const OFFRAMP_INITIATE_EXAMPLES = {
  nonCustodial: {
    summary: 'Non-custodial: the user sends the crypto to the returned depositAddress',
    value: {
      quoteId: 'qt_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
      sourceAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      reference: 'payout-7781',
      callbackUrl: 'https://example.com/hooks/ramp',
    },
  },
  custodial: {
    summary: 'Custodial: the tokens come from a managed wallet',
    value: {
      quoteId: 'qt_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
      walletId: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
      reference: 'payout-7781',
      callbackUrl: 'https://example.com/hooks/ramp',
    },
  },
};

export class SandboxDepositRequest implements Omit<SandboxDeposit.Request, 'transactionId'> {
  @ApiPropertyOptional({ description: 'Defaults to the quoted amount; another amount is returned to the sender and fails the off-ramp.', example: '100' })
  @OptionalString(60)
  amount?: string;
}

export class OfframpInitiateSchema {
  @ApiProperty({ example: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V' }) transactionId!: string;
  @ApiPropertyOptional({ type: String, example: 'payout-7781' }) reference?: string;
  @ApiProperty({ enum: ['pending'] satisfies TransactionStatus[] }) status!: string;
  @ApiPropertyOptional({
    type: String,
    description: 'Non-custodial only: where to send the crypto (absent when custodial).',
    example: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  })
  depositAddress?: string;
  @ApiProperty({ description: "NGN the bank account should receive (the quote's payoutAmount).", example: '149010.75' }) estimatedFiatAmount!: string;
  @ApiProperty({ example: 'about 4 seconds' }) estimatedArrival!: string;
}

const INITIATE: ForwardOptions = { status: 201, needsProviders: true };
const READ: ForwardOptions = { status: 200, needsProviders: true };

@Controller()
export class OfframpHttpController {
  constructor(@Inject(Forwarder) private readonly forwarder: Forwarder) {}

  @Post('offramp/initiate')
  @ApiBody({ type: OfframpInitiateRequest, examples: OFFRAMP_INITIATE_EXAMPLES })
  @ApiEndpoint({
    operationId: 'initiateOfframp',
    tag: 'Off-ramp',
    summary: 'Start an off-ramp: crypto to NGN paid to the quoted bank account',
    description:
      'Needs an off-ramp quote of yours and exactly one of walletId and sourceAddress. ' +
      'Custodial (walletId): the tokens are held in the managed wallet, swapped to CNGN unless CNGN, sent to the off-ramp provider and paid out in NGN. Non-custodial (sourceAddress): send the crypto to depositAddress; then the same. The quote is used once. Errors before anything moved (expired or used quote, unknown wallet, insufficient balance) are 4xx; later failures end the transaction as failed, with everything given back.',
    status: 201,
    data: OfframpInitiateSchema,
    errors: ['INVALID_REQUEST', 'NOT_FOUND'],
    idempotent: true,
  })
  async initiate(@Body(BodyPipe) body: OfframpInitiateRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.forwarder.post(OfframpInitiate.contract, request, reply, body, INITIATE);
  }

  @Get('offramp/:transactionId')
  @ApiParam({ name: 'transactionId', example: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @ApiEndpoint({
    operationId: 'getOfframp',
    tag: 'Off-ramp',
    summary: 'An off-ramp transaction',
    description:
      'Read from the ramp service itself, so current at once: `status` (pending, completed, failed), `ramp` with the bank account and amounts, `transactionHash`, and `errorMessage` when failed. ' +
      "NOT_FOUND for an unknown id, another API key's transaction, or one of another type.",
    status: 200,
    data: TransactionSchema,
    errors: ['NOT_FOUND'],
  })
  async get(@Param('transactionId') transactionId: string, @Req() request: FastifyRequest) {
    return this.forwarder.get(RampTransactionGet.contract, request, { transactionId, type: 'offramp' }, READ);
  }

  @Post('sandbox/offramp/:transactionId/deposit')
  @ApiParam({ name: 'transactionId', example: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @ApiEndpoint({
    operationId: 'sandboxDepositOfframp',
    tag: 'Sandbox',
    summary: 'Sandbox: the crypto of a non-custodial off-ramp arrives',
    description:
      "Test keys only (a live key gets NOT_FOUND). Plays the user's deposit to the off-ramp's depositAddress, after which it runs on its own; answers the transaction. " +
      'Another `amount` than the quoted one is sent back to the source address and fails the off-ramp. NOT_FOUND: an unknown off-ramp; CONFLICT: a custodial one, which takes no deposit.',
    status: 200,
    data: TransactionSchema,
    errors: ['INVALID_REQUEST', 'NOT_FOUND'],
    idempotent: true,
  })
  async deposit(
    @Param('transactionId') transactionId: string,
    @Body(BodyPipe) body: SandboxDepositRequest,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    sandboxOnly(request.ctx.key?.tenant.environment);
    await this.forwarder.post(SandboxDeposit.contract, request, reply, { transactionId, ...body }, { status: 200, needsProviders: false });
  }
}
