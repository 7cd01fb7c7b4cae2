import { Body, Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiParam, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RouteTransactionGet, SwapInitiate, TransferInitiate } from '@ramp/contracts';
import { BodyPipe, OptionalString, RequiredString } from '../edge/validation';
import { Forwarder, type ForwardOptions } from '../forwarding/forwarder';
import { ApiEndpoint } from '../openapi/api-endpoint';
import { InitiatedTransactionSchema, TransactionSchema } from '../transactions/transaction.schema';

export class TransferInitiateRequest implements TransferInitiate.Request {
  @ApiProperty({ description: 'A quote of yours of this kind that has not expired or been used.', example: 'qt_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @RequiredString(40)
  quoteId!: string;
  @ApiProperty({
    description: "The managed wallet to debit: on the quote's fromChain, holding at least its fromAmount.",
    example: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
  })
  @RequiredString(40)
  walletId!: string;
  @ApiPropertyOptional({ description: 'Your reference, echoed back (at most 100 characters).', example: 'treasury-88' })
  @OptionalString(100)
  reference?: string;
  @ApiPropertyOptional({ description: "Receives this transaction's events, signed with your API secret.", example: 'https://example.com/hooks/ramp' })
  @OptionalString(2048)
  callbackUrl?: string;
}

export class SwapInitiateRequest extends TransferInitiateRequest implements SwapInitiate.Request {
  @ApiPropertyOptional({
    description:
      "Where the proceeds go, valid for the quote's toChain (EVM: EIP-55 checksummed or lowercase hex). Required for a cross-chain swap; on one chain the proceeds go back into the wallet when it is absent.",
    example: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  })
  @OptionalString(100)
  destinationAddress?: string;
}

const INITIATE: ForwardOptions = { status: 201, needsProviders: true };
const READ: ForwardOptions = { status: 200, needsProviders: true };
const FAILURES =
  'Errors before anything moved (an expired, used or other-kind quote, an unknown wallet, one on another chain, an insufficient balance, a missing or invalid destinationAddress) are 4xx and leave the quote unused. ' +
  'Later failures (the price moved beyond the slippage tolerance, a bridge that fails) unwind the legs that ran and give the wallet back its whole amount before the transaction ends as failed with errorMessage.';

@Controller()
export class SwapsHttpController {
  constructor(@Inject(Forwarder) private readonly forwarder: Forwarder) {}

  @Post('swap/initiate')
  @ApiEndpoint({
    operationId: 'initiateSwap',
    tag: 'Swaps',
    summary: 'Execute a swap quote from a managed wallet, on one chain or across chains',
    description:
      'Holds fromAmount of fromToken in the wallet (before answering), then runs the quoted route leg by leg: a DEX swap on one chain; or a source swap, a bridge and a destination swap, each when needed. ' +
      "Each swap reverts if it would give less than the quote's slippage allows. Answers 201 with the pending Transaction; `route.steps` shows each leg with its status and hash. " +
      FAILURES,
    status: 201,
    data: InitiatedTransactionSchema,
    errors: ['INVALID_REQUEST', 'NOT_FOUND'],
    idempotent: true,
  })
  async initiateSwap(@Body(BodyPipe) body: SwapInitiateRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.forwarder.post(SwapInitiate.contract, request, reply, body, INITIATE);
  }

  @Get('swap/:transactionId')
  @ApiParam({ name: 'transactionId', example: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @ApiEndpoint({
    operationId: 'getSwap',
    tag: 'Swaps',
    summary: 'A swap transaction',
    description:
      "Read from the swap-transfer service itself, so current at once: `status`, `swap` with the amounts (quoted while pending, delivered once completed), `route.steps` with each leg's status and hash, and `errorMessage` when failed. " +
      "NOT_FOUND for an unknown id, another API key's transaction, or one of another type.",
    status: 200,
    data: TransactionSchema,
    errors: ['NOT_FOUND'],
  })
  async getSwap(@Param('transactionId') transactionId: string, @Req() request: FastifyRequest) {
    return this.forwarder.get(RouteTransactionGet.contract, request, { transactionId, type: 'swap' }, READ);
  }

  @Post('transfer/initiate')
  @ApiEndpoint({
    operationId: 'initiateTransfer',
    tag: 'Transfers',
    summary: 'Execute a transfer quote: move tokens from a managed wallet to another chain, optionally converting them there',
    description:
      "Holds fromAmount of the token in the wallet (before answering), bridges it to the quote's destinationAddress on toChain and, with a toToken, swaps it there (at most 0.5% below the quoted toAmount). Answers 201 with the pending Transaction. " +
      FAILURES,
    status: 201,
    data: InitiatedTransactionSchema,
    errors: ['INVALID_REQUEST', 'NOT_FOUND'],
    idempotent: true,
  })
  async initiateTransfer(@Body(BodyPipe) body: TransferInitiateRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.forwarder.post(TransferInitiate.contract, request, reply, body, INITIATE);
  }

  @Get('transfer/:transactionId')
  @ApiParam({ name: 'transactionId', example: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V' })
  @ApiEndpoint({
    operationId: 'getTransfer',
    tag: 'Transfers',
    summary: 'A cross-chain transfer',
    description:
      "Read from the swap-transfer service itself, so current at once: `status`, `transfer` with the chains, destination and amounts, `route.steps` with each leg's status and hash, and `errorMessage` when failed. " +
      "NOT_FOUND for an unknown id, another API key's transaction, or one of another type.",
    status: 200,
    data: TransactionSchema,
    errors: ['NOT_FOUND'],
  })
  async getTransfer(@Param('transactionId') transactionId: string, @Req() request: FastifyRequest) {
    return this.forwarder.get(RouteTransactionGet.contract, request, { transactionId, type: 'transfer' }, READ);
  }
}
