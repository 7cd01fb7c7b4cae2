import { Inject, Injectable } from '@nestjs/common';
import { SwapInitiate, type TransactionRecord } from '@ramp/contracts';
import type { RpcContext } from '@ramp/messaging';
import { RpcHandler } from '@ramp/service-kit';
import { RouteService } from '../route/route.service';

@Injectable()
export class SwapNatsController {
  constructor(@Inject(RouteService) private readonly routes: RouteService) {}

  @RpcHandler(SwapInitiate.contract)
  async initiate(request: SwapInitiate.Request, { tenant, requestId }: RpcContext): Promise<TransactionRecord> {
    return (await this.routes.initiateSwap(tenant, { ...request }, requestId)) as unknown as TransactionRecord;
  }
}
