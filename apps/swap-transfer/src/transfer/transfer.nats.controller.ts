import { Inject, Injectable } from '@nestjs/common';
import { TransferInitiate, type TransactionRecord } from '@ramp/contracts';
import type { RpcContext } from '@ramp/messaging';
import { RpcHandler } from '@ramp/service-kit';
import { RouteService } from '../route/route.service';

@Injectable()
export class TransferNatsController {
  constructor(@Inject(RouteService) private readonly routes: RouteService) {}

  @RpcHandler(TransferInitiate.contract)
  async initiate(request: TransferInitiate.Request, { tenant, requestId }: RpcContext): Promise<TransactionRecord> {
    return (await this.routes.initiateTransfer(tenant, { ...request }, requestId)) as unknown as TransactionRecord;
  }
}
