import { Controller, Inject } from '@nestjs/common';
import { verifyAccountNumberFormat } from '@ramp/banking';
import { BankList, BankVerify, type Tenant } from '@ramp/contracts';
import { CallerTenant, Handles, RequestData } from '@ramp/messaging';
import { BankDirectories } from '@ramp/providers';

/**
 * The bank list and account verification (NUBAN check first, then the bank directory) of the caller's environment:
 * the sandbox's for a test key, the bank partners' for a live key.
 */
@Controller()
export class BanksNatsController {
  constructor(@Inject(BankDirectories) private readonly directories: BankDirectories) {}

  @Handles(BankList.contract)
  async list(@CallerTenant() tenant: Tenant): Promise<BankList.Response> {
    return this.directories.of(tenant.environment).listBanks();
  }

  @Handles(BankVerify.contract)
  async verify(@RequestData() request: BankVerify.Request, @CallerTenant() tenant: Tenant): Promise<BankVerify.Response> {
    const directory = this.directories.of(tenant.environment);
    const bank = verifyAccountNumberFormat(request.bankCode, request.accountNumber);
    const { accountName } = await directory.resolveAccount(bank.code, request.accountNumber);
    return { accountNumber: request.accountNumber, accountName, bankCode: bank.code, bankName: bank.name };
  }
}
