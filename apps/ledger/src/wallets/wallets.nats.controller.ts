import { Controller, Inject } from '@nestjs/common';
import { HoldPlace, HoldSettle, WalletCreate, WalletCredit, WalletFund, WalletGet, WalletList, type Tenant, type WalletView } from '@ramp/contracts';
import { CallerTenant, Handles, RequestData } from '@ramp/messaging';
import { WalletService } from './wallet-service';

@Controller()
export class WalletsNatsController {
  constructor(@Inject(WalletService) private readonly wallets: WalletService) {}

  @Handles(WalletCreate.contract)
  async create(@RequestData() request: WalletCreate.Request, @CallerTenant() tenant: Tenant): Promise<WalletView> {
    return this.wallets.create(tenant, request);
  }

  @Handles(WalletList.contract)
  async list(@RequestData() request: WalletList.Request, @CallerTenant() tenant: Tenant): Promise<WalletList.Response> {
    return this.wallets.list(tenant, request);
  }

  @Handles(WalletGet.contract)
  async get(@RequestData() request: WalletGet.Request, @CallerTenant() tenant: Tenant): Promise<WalletView> {
    return this.wallets.get(tenant, request.walletId);
  }

  @Handles(WalletFund.contract)
  async fund(@RequestData() request: WalletFund.Request, @CallerTenant() tenant: Tenant): Promise<WalletFund.Response> {
    return this.wallets.fund(tenant, request);
  }

  @Handles(HoldPlace.contract)
  async placeHold(@RequestData() request: HoldPlace.Request, @CallerTenant() tenant: Tenant): Promise<HoldPlace.Response> {
    return this.wallets.placeHold(tenant, request);
  }

  @Handles(HoldSettle.contract)
  async settleHold(@RequestData() request: HoldSettle.Request, @CallerTenant() tenant: Tenant): Promise<HoldPlace.Response> {
    return this.wallets.settleHold(tenant, request);
  }

  @Handles(WalletCredit.contract)
  async credit(@RequestData() request: WalletCredit.Request, @CallerTenant() tenant: Tenant): Promise<{ entryId: string; applied: boolean }> {
    return this.wallets.credit(tenant, request);
  }
}
