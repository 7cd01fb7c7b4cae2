import { Body, Controller, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OfframpQuote, OnrampQuote, SwapQuote, TransferQuote } from '@ramp/contracts';
import { BodyPipe } from '../edge/validation';
import { Forwarder, type ForwardOptions } from '../forwarding/forwarder';
import { ApiEndpoint } from '../openapi/api-endpoint';
import {
  OfframpQuoteRequest,
  OfframpQuoteSchema,
  OnrampQuoteRequest,
  OnrampQuoteSchema,
  SwapQuoteRequest,
  SwapQuoteSchema,
  TransferQuoteRequest,
  TransferQuoteSchema,
} from './quote.dto';

const QUOTE: ForwardOptions = { status: 200, needsProviders: true };
const QUOTE_ERRORS = ['INVALID_REQUEST' as const, 'FORBIDDEN' as const, 'CONFLICT' as const];

@ApiTags('Quotes')
@Controller()
export class QuotesHttpController {
  constructor(@Inject(Forwarder) private readonly forwarder: Forwarder) {}

  @Post('onramp/quote')
  @ApiEndpoint({
    summary: 'Quote buying crypto with Naira',
    description: 'Valid for 5 minutes and usable once. A token other than CNGN adds the 20 NGN swap fee.',
    status: 200,
    data: OnrampQuoteSchema,
    errors: QUOTE_ERRORS,
    idempotent: true,
  })
  async onramp(@Body(BodyPipe) body: OnrampQuoteRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.forwarder.post(OnrampQuote.contract, request, reply, body, QUOTE);
  }

  @Post('offramp/quote')
  @ApiEndpoint({
    summary: 'Quote selling crypto for Naira paid to a bank account',
    description:
      'Verifies the bank account (NUBAN check digit, then the bank directory) and returns the account name. Fees: platform 20 NGN; ' +
      'processing 0.1% of fiatAmount capped at 200 NGN; stamp duty 50 NGN from 10,000 NGN; swap 20 NGN when the token is not CNGN. ' +
      'providerFee is processing plus stamp duty; the bank account receives payoutAmount = fiatAmount - totalFee.',
    status: 200,
    data: OfframpQuoteSchema,
    errors: QUOTE_ERRORS,
    idempotent: true,
  })
  async offramp(@Body(BodyPipe) body: OfframpQuoteRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.forwarder.post(OfframpQuote.contract, request, reply, body, QUOTE);
  }

  @Post('swap/quote')
  @ApiEndpoint({
    summary: 'Quote a swap on one chain or across chains',
    status: 200,
    data: SwapQuoteSchema,
    errors: QUOTE_ERRORS,
    idempotent: true,
  })
  async swap(@Body(BodyPipe) body: SwapQuoteRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.forwarder.post(SwapQuote.contract, request, reply, body, QUOTE);
  }

  @Post('transfer/quote')
  @ApiEndpoint({
    summary: 'Quote moving tokens to another chain, optionally converting them there',
    status: 200,
    data: TransferQuoteSchema,
    errors: QUOTE_ERRORS,
    idempotent: true,
  })
  async transfer(@Body(BodyPipe) body: TransferQuoteRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.forwarder.post(TransferQuote.contract, request, reply, body, QUOTE);
  }
}
