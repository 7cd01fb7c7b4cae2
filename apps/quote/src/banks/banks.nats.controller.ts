import { Controller, Inject } from '@nestjs/common';
import { NIGERIAN_BANKS, verifyAccountNumberFormat } from '@ramp/banking';
import { BankList, BankVerify } from '@ramp/contracts';
import { Handles, RequestData } from '@ramp/messaging';
import { BANK_DIRECTORY, type BankDirectory } from '@ramp/providers';

/** The bank list and account verification (NUBAN check first, then the bank directory). */
@Controller()
export class BanksNatsController {
  constructor(@Inject(BANK_DIRECTORY) private readonly directory: BankDirectory) {}

  @Handles(BankList.contract)
  async list(): Promise<BankList.Response> {
    return NIGERIAN_BANKS.map(({ code, name }) => ({ code, name }));
  }

  @Handles(BankVerify.contract)
  async verify(@RequestData() request: BankVerify.Request): Promise<BankVerify.Response> {
    const bank = verifyAccountNumberFormat(request.bankCode, request.accountNumber);
    const { accountName } = await this.directory.resolveAccount(bank.code, request.accountNumber);
    return { accountNumber: request.accountNumber, accountName, bankCode: bank.code, bankName: bank.name };
  }
}
