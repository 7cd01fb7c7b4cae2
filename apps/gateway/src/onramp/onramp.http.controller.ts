import { Body, Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiParam, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OnrampInitiate, RampTransactionGet, sandboxOnly, SandboxPayment } from '@ramp/contracts';
import { BodyPipe, OptionalObject, OptionalString, RequiredString } from '../edge/validation';
import { Forwarder, type ForwardOptions } from '../forwarding/forwarder';
import { ApiEndpoint } from '../openapi/api-endpoint';
import { InitiatedTransactionSchema, TransactionSchema } from '../transactions/transaction.schema';

export class OnrampCustomerSchema implements OnrampInitiate.Customer {
  @ApiProperty({ description: "The payer's email address.", example: 'ada.obi@example.com', maxLength: 254 }) email!: string;
  @ApiProperty({ description: "The payer's first name, as their bank knows it.", example: 'Ada', maxLength: 100 }) firstName!: string;
  @ApiProperty({ description: "The payer's last name.", example: 'Obi', maxLength: 100 }) lastName!: string;
  @ApiProperty({ description: 'E.164 (+2348031234567), or a Nigerian local number (08031234567).', example: '+2348031234567' }) phone!: string;
}

export class OnrampInitiateRequest implements OnrampInitiate.Request {
  @ApiProperty({ description: 'An on-ramp quote of yours that has not expired or been used.', example: 'qt_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @RequiredString(40)
  quoteId!: string;
  @ApiPropertyOptional({
    description: "The managed wallet to credit (on the quote's chain). Give exactly one of walletId and destinationAddress.",
    example: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
  })
  @OptionalString(40)
  walletId?: string;
  @ApiPropertyOptional({
    description:
      "An address on the quote's chain to send the crypto to (EIP-55 checksummed or lowercase hex). Give exactly one of walletId and destinationAddress.",
    example: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  })
  @OptionalString(100)
  destinationAddress?: string;
  @ApiPropertyOptional({ description: 'Your reference, echoed back (at most 100 characters).', example: 'topup-311' }) @OptionalString(100) reference?: string;
  @ApiPropertyOptional({
    description: "Receives this transaction's events, signed with your API secret: an https:// URL of a public host.",
    example: 'https://example.com/hooks/ramp',
  })
  @OptionalString(2048)
  callbackUrl?: string;
  @ApiPropertyOptional({
    type: OnrampCustomerSchema,
    description:
      'The payer, for whom the bank partner opens the account to pay into: required with a live key. A test key may give it (each field is checked, naming `customer.<field>`), and the sandbox does not use it.',
  })
  @OptionalObject()
  customer?: OnrampCustomerSchema;
}

/** The two destinations: the properties' examples together would give both walletId and destinationAddress. */
const ONRAMP_INITIATE_EXAMPLES = {
  toAddress: {
    summary: 'Deliver the crypto to an address',
    value: {
      quoteId: 'qt_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
      destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      reference: 'topup-311',
      callbackUrl: 'https://example.com/hooks/ramp',
      customer: { email: 'ada.obi@example.com', firstName: 'Ada', lastName: 'Obi', phone: '+2348031234567' },
    },
  },
  toWallet: {
    summary: 'Credit a managed wallet',
    value: {
      quoteId: 'qt_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
      walletId: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
      reference: 'topup-311',
      callbackUrl: 'https://example.com/hooks/ramp',
    },
  },
};

export class SandboxPaymentRequest implements Omit<SandboxPayment.Request, 'transactionId'> {
  @ApiPropertyOptional({ description: 'NGN paid; defaults to the amount expected. Another amount is refunded and fails the on-ramp.', example: '50000' })
  @OptionalString(60)
  amount?: string;
}

@Controller()
export class OnrampHttpController {
  constructor(@Inject(Forwarder) private readonly forwarder: Forwarder) {}

  @Post('onramp/initiate')
  @ApiBody({ type: OnrampInitiateRequest, examples: ONRAMP_INITIATE_EXAMPLES })
  @ApiEndpoint({
    operationId: 'initiateOnramp',
    tag: 'On-ramp',
    summary: 'Start an on-ramp: NGN paid into a virtual account buys crypto for a wallet or an address',
    description:
      "Needs an on-ramp quote of yours and exactly one of walletId (a managed wallet on the quote's chain) and destinationAddress. " +
      'Answers the pending transaction with `paymentInstructions` (bank, account number, name, exact amount, expiry). Once the NGN arrives, CNGN is minted, swapped to the quoted token unless CNGN, and delivered. A payment of another amount, or a failed swap, is refunded before the on-ramp fails; no payment before expiry fails it. ' +
      'Errors before anything moved (an expired, used or other-kind quote, an unknown wallet, an invalid address) are 4xx and leave the quote unused.',
    status: 201,
    data: InitiatedTransactionSchema,
    errors: ['INVALID_REQUEST', 'NOT_FOUND'],
    idempotent: true,
  })
  async initiate(@Body(BodyPipe) body: OnrampInitiateRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.forwarder.post(OnrampInitiate.contract, request, reply, body, { status: 201, needsProviders: true });
  }

  @Get('onramp/:transactionId')
  @ApiParam({ name: 'transactionId', example: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @ApiEndpoint({
    operationId: 'getOnramp',
    tag: 'On-ramp',
    summary: 'An on-ramp transaction',
    description:
      'Read from the ramp service itself, so current at once: `status`, `paymentInstructions` while the NGN is awaited, `ramp` with the amounts, `transactionHash`, and `errorMessage` when failed. ' +
      "NOT_FOUND for an unknown id, another API key's transaction, or one of another type.",
    status: 200,
    data: TransactionSchema,
    errors: ['NOT_FOUND'],
  })
  async get(@Param('transactionId') transactionId: string, @Req() request: FastifyRequest) {
    const read: ForwardOptions = { status: 200, needsProviders: true };
    return this.forwarder.get(RampTransactionGet.contract, request, { transactionId, type: 'onramp' }, read);
  }

  @Post('sandbox/onramp/:transactionId/pay')
  @ApiParam({ name: 'transactionId', example: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @ApiEndpoint({
    operationId: 'sandboxPayOnramp',
    tag: 'Sandbox',
    summary: 'Sandbox: the NGN payment of an on-ramp arrives',
    description:
      "Test keys only (a live key gets NOT_FOUND). Plays the payment into the on-ramp's virtual account, after which it runs on its own; answers the transaction. " +
      'Another `amount` than `paymentInstructions.amount` is refunded and fails the on-ramp. NOT_FOUND: an unknown on-ramp.',
    status: 200,
    data: TransactionSchema,
    errors: ['INVALID_REQUEST', 'NOT_FOUND'],
    idempotent: true,
  })
  async pay(
    @Param('transactionId') transactionId: string,
    @Body(BodyPipe) body: SandboxPaymentRequest,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    sandboxOnly(request.ctx.key?.tenant.environment);
    await this.forwarder.post(SandboxPayment.contract, request, reply, { transactionId, ...body }, { status: 200, needsProviders: false });
  }
}
