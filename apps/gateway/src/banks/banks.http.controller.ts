import { Body, Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BankList, BankVerify } from '@ramp/contracts';
import { BodyPipe, RequiredString } from '../edge/validation';
import { Forwarder, type ForwardOptions } from '../forwarding/forwarder';
import { ApiEndpoint } from '../openapi/api-endpoint';

export class BankVerifyRequest implements BankVerify.Request {
  @ApiProperty({ description: 'Bank code from GET /onramp/banks.', example: '058' }) @RequiredString(10) bankCode!: string;
  @ApiProperty({ description: '10-digit NUBAN account number, its check digit valid for the bank.', example: '0123456785' })
  @RequiredString(20)
  accountNumber!: string;
}

export class BankSchema {
  @ApiProperty({ example: '058', description: 'CBN code (3 digits) or NIBSS institution code (6 digits).' }) code!: string;
  @ApiProperty({ example: 'Guaranty Trust Bank' }) name!: string;
}

export class VerifiedAccountSchema {
  @ApiProperty({ example: '0123456785' }) accountNumber!: string;
  @ApiProperty({ example: 'NGOZI OKONKWO' }) accountName!: string;
  @ApiProperty({ example: '058' }) bankCode!: string;
  @ApiProperty({ example: 'Guaranty Trust Bank' }) bankName!: string;
}

/** The quote service answers a live key from the bank partners, or refuses it (LIVE_MODE_DISABLED) when none is configured. */
const BANKS: ForwardOptions = { status: 200, needsProviders: false };

@Controller('onramp/banks')
export class BanksHttpController {
  constructor(@Inject(Forwarder) private readonly forwarder: Forwarder) {}

  @Get()
  @ApiEndpoint({
    operationId: 'listBanks',
    tag: 'Banks',
    summary: 'List Nigerian banks and their codes',
    description:
      'Commercial banks with their 3-digit CBN codes, and fintech and microfinance banks with their 6-digit NIBSS codes: the `bankCode` of off-ramp quotes and bank verification. ' +
      'A live key gets the banks its bank partner can verify and pay (fetched from the partner, refreshed daily), or FORBIDDEN (LIVE_MODE_DISABLED) while no bank partner is configured.',
    status: 200,
    data: [BankSchema],
    errors: ['FORBIDDEN'],
  })
  async list(@Req() request: FastifyRequest) {
    return this.forwarder.get(BankList.contract, request, {}, BANKS);
  }

  @Post('verify')
  @ApiEndpoint({
    operationId: 'verifyBankAccount',
    tag: 'Banks',
    summary: "Verify a bank account and return the holder's name",
    description:
      'Use it before an off-ramp to show the account name to the user. The account number must be 10 digits with a valid NUBAN check digit for the bank (checked before any provider call); ' +
      "then the bank directory resolves the name: the sandbox's for a test key, the bank partner's (NIBSS name enquiry) for a live key. " +
      'INVALID_REQUEST names the field: an unknown bank code, a wrong check digit, or an account the bank does not have. ' +
      'SERVICE_UNAVAILABLE: no bank partner answered; retry later.',
    status: 200,
    data: VerifiedAccountSchema,
    errors: ['INVALID_REQUEST', 'FORBIDDEN', 'SERVICE_UNAVAILABLE'],
    idempotent: true,
  })
  async verify(@Body(BodyPipe) body: BankVerifyRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.forwarder.post(BankVerify.contract, request, reply, body, BANKS);
  }
}
