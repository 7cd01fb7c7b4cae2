import { Controller, Inject } from '@nestjs/common';
import { TransferInitiate, type InitiatedTransaction, type Tenant } from '@ramp/contracts';
import { CallerTenant, Handles, RequestData, RequestId } from '@ramp/messaging';
import { RouteService } from '../route/route.service';

@Controller()
export class TransferNatsController {
  constructor(@Inject(RouteService) private readonly routes: RouteService) {}

  @Handles(TransferInitiate.contract)
  async initiate(
    @RequestData() request: TransferInitiate.Request,
    @CallerTenant() tenant: Tenant,
    @RequestId() requestId: string | undefined,
  ): Promise<InitiatedTransaction> {
    return this.routes.initiateTransfer(tenant, { ...request }, requestId);
  }
}
