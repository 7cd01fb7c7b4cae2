import { Body, Controller, Inject, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PRIMARY_CHAINS } from '@ramp/chains';
import { OfframpQuote, OnrampQuote, SwapQuote, TransferQuote } from '@ramp/contracts';
import { BodyPipe } from '../edge/validation';
import { Forwarder, type ForwardOptions } from '../forwarding/forwarder';
import { ApiEndpoint } from '../openapi/api-endpoint';
import { spelled } from '../openapi/wording';
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

@Controller()
export class QuotesHttpController {
  constructor(@Inject(Forwarder) private readonly forwarder: Forwarder) {}

  @Post('onramp/quote')
  @ApiEndpoint({
    operationId: 'quoteOnramp',
    tag: 'Quotes',
    summary: 'Quote buying crypto with Naira',
    description:
      'Prices `amount` NGN into `tokenSymbol` on `chain`: the fees (platform 20 NGN; processing 0.1% capped at 200 NGN; stamp duty 50 NGN from 10,000 NGN; swap 20 NGN when the token is not CNGN) come off the Naira, the rest buys the token at `rate`. ' +
      'Valid for 5 minutes and usable once, by POST /onramp/initiate. INVALID_REQUEST names the field: an amount outside the limits (NGN 1,000 to 50,000,000) or with more than 2 decimals, a token the chain does not have.',
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
    operationId: 'quoteOfframp',
    tag: 'Quotes',
    summary: 'Quote selling crypto for Naira paid to a bank account',
    description:
      'Valid for 5 minutes and usable once, by POST /offramp/initiate. Verifies the bank account (NUBAN check digit, then the bank directory) and returns the account name. Fees: platform 20 NGN; ' +
      'processing 0.1% of fiatAmount capped at 200 NGN; stamp duty 50 NGN from 10,000 NGN; swap 20 NGN when the token is not CNGN. ' +
      'providerFee is processing plus stamp duty; the bank account receives payoutAmount = fiatAmount - totalFee. ' +
      "INVALID_REQUEST names the field: an amount outside the token's limits, an unknown bank, an account number whose check digit is wrong or that the bank does not have.",
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
    operationId: 'quoteSwap',
    tag: 'Quotes',
    summary: 'Quote a swap on one chain or across chains',
    description:
      `Prices \`amount\` of fromToken on fromChain into toToken on toChain (${spelled(PRIMARY_CHAINS)}; different chains make it cross-chain, through a bridge) along the route the router finds. ` +
      'Fees: platform 0.3% of the amount, plus across chains a bridge fee of 0.05% (at least 0.50 USD), both in fromToken. `minimumToAmount` is what the swap executes for at worst, given `slippage` (percent, default 0.5, above 0 and at most 50). ' +
      'Valid for 5 minutes and usable once, by POST /swap/initiate. INVALID_REQUEST names the field: a token the chain does not have, an amount outside its limits, a slippage out of range.',
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
    operationId: 'quoteTransfer',
    tag: 'Quotes',
    summary: 'Quote moving tokens to another chain, optionally converting them there',
    description:
      `Prices moving \`amount\` of \`token\` from ${spelled(PRIMARY_CHAINS)} to \`destinationAddress\` on any supported chain (required across chains, and valid for toChain: EVM hex, or base58 on Solana), with \`toToken\` swapped there when given. ` +
      'Fees as for swaps (platform 0.3%, bridge 0.05% with a 0.50 USD floor), in the source token. Valid for 5 minutes and usable once, by POST /transfer/initiate. ' +
      'INVALID_REQUEST names the field: an unsupported chain or token, an invalid destination address, an amount outside its limits.',
    status: 200,
    data: TransferQuoteSchema,
    errors: QUOTE_ERRORS,
    idempotent: true,
  })
  async transfer(@Body(BodyPipe) body: TransferQuoteRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.forwarder.post(TransferQuote.contract, request, reply, body, QUOTE);
  }
}
