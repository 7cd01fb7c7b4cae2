import { Controller, Inject } from '@nestjs/common';
import { SwapInitiate, type InitiatedTransaction, type Tenant } from '@ramp/contracts';
import { CallerTenant, Handles, RequestData, RequestId } from '@ramp/messaging';
import { RouteService } from '../route/route.service';

@Controller()
export class SwapNatsController {
  constructor(@Inject(RouteService) private readonly routes: RouteService) {}

  @Handles(SwapInitiate.contract)
  async initiate(
    @RequestData() request: SwapInitiate.Request,
    @CallerTenant() tenant: Tenant,
    @RequestId() requestId: string | undefined,
  ): Promise<InitiatedTransaction> {
    return this.routes.initiateSwap(tenant, { ...request }, requestId);
  }
}
