import { Body, Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BankList, BankVerify } from '@ramp/contracts';
import { BodyPipe, RequiredString } from '../edge/validation';
import { Forwarder, type ForwardOptions } from '../forwarding/forwarder';
import { ApiEndpoint } from '../openapi/api-endpoint';

export class BankVerifyRequest {
  @ApiProperty({ example: '058' }) @RequiredString(10) bankCode!: string;
  @ApiProperty({ example: '0123456789' }) @RequiredString(20) accountNumber!: string;
}

export class BankSchema {
  @ApiProperty({ example: '058', description: 'CBN code (3 digits) or NIBSS institution code (6 digits).' }) code!: string;
  @ApiProperty({ example: 'Guaranty Trust Bank' }) name!: string;
}

export class VerifiedAccountSchema {
  @ApiProperty({ example: '0123456789' }) accountNumber!: string;
  @ApiProperty({ example: 'ADAEZE OKONKWO' }) accountName!: string;
  @ApiProperty({ example: '058' }) bankCode!: string;
  @ApiProperty({ example: 'Guaranty Trust Bank' }) bankName!: string;
}

const BANKS: ForwardOptions = { status: 200, needsProviders: true };

@ApiTags('Banks')
@Controller('onramp/banks')
export class BanksHttpController {
  constructor(@Inject(Forwarder) private readonly forwarder: Forwarder) {}

  @Get()
  @ApiEndpoint({ summary: 'List Nigerian banks and their codes', status: 200, data: [BankSchema], errors: ['FORBIDDEN'] })
  async list(@Req() request: FastifyRequest) {
    return this.forwarder.get(BankList.contract, request, {}, BANKS);
  }

  @Post('verify')
  @ApiEndpoint({
    summary: 'Verify a bank account and return the holder\'s name',
    description: 'The account number must be 10 digits with a valid NUBAN check digit for the bank; then the bank directory resolves the name.',
    status: 200,
    data: VerifiedAccountSchema,
    errors: ['INVALID_REQUEST', 'FORBIDDEN'],
    idempotent: true,
  })
  async verify(@Body(BodyPipe) body: BankVerifyRequest, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.forwarder.post(BankVerify.contract, request, reply, body, BANKS);
  }
}
