import { Inject, Injectable } from '@nestjs/common';
import { HoldPlace, HoldSettle, WalletCreate, WalletCredit, WalletFund, WalletGet, WalletList, type WalletView } from '@ramp/contracts';
import type { RpcContext } from '@ramp/messaging';
import { RpcHandler } from '@ramp/service-kit';
import { WalletService } from './wallet-service';

@Injectable()
export class WalletsNatsController {
  constructor(@Inject(WalletService) private readonly wallets: WalletService) {}

  @RpcHandler(WalletCreate.contract)
  async create(request: WalletCreate.Request, { tenant }: RpcContext): Promise<WalletView> {
    return this.wallets.create(tenant, request);
  }

  @RpcHandler(WalletList.contract)
  async list(request: WalletList.Request, { tenant }: RpcContext): Promise<WalletList.Response> {
    return this.wallets.list(tenant, request);
  }

  @RpcHandler(WalletGet.contract)
  async get(request: WalletGet.Request, { tenant }: RpcContext): Promise<WalletView> {
    return this.wallets.get(tenant, request.walletId);
  }

  @RpcHandler(WalletFund.contract)
  async fund(request: WalletFund.Request, { tenant }: RpcContext): Promise<WalletView> {
    return this.wallets.fund(tenant, request);
  }

  @RpcHandler(HoldPlace.contract)
  async placeHold(request: HoldPlace.Request, { tenant }: RpcContext): Promise<HoldPlace.Response> {
    return this.wallets.placeHold(tenant, request);
  }

  @RpcHandler(HoldSettle.contract)
  async settleHold(request: HoldSettle.Request, { tenant }: RpcContext): Promise<HoldPlace.Response> {
    return this.wallets.settleHold(tenant, request);
  }

  @RpcHandler(WalletCredit.contract)
  async credit(request: WalletCredit.Request, { tenant }: RpcContext): Promise<{ entryId: string; applied: boolean }> {
    return this.wallets.credit(tenant, request);
  }
}
