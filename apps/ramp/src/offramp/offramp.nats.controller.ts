import { Controller, Inject } from '@nestjs/common';
import { OfframpInitiate, SandboxDeposit, type Tenant, type TransactionRecord } from '@ramp/contracts';
import { CallerTenant, Handles, RequestData, RequestId } from '@ramp/messaging';
import { OfframpService } from './offramp.service';

@Controller()
export class OfframpNatsController {
  constructor(@Inject(OfframpService) private readonly offramps: OfframpService) {}

  @Handles(OfframpInitiate.contract)
  async initiate(
    @RequestData() request: OfframpInitiate.Request,
    @CallerTenant() tenant: Tenant,
    @RequestId() requestId: string | undefined,
  ): Promise<OfframpInitiate.Response> {
    return this.offramps.initiate(tenant, request, requestId);
  }

  @Handles(SandboxDeposit.contract)
  async deposit(@RequestData() request: SandboxDeposit.Request, @CallerTenant() tenant: Tenant): Promise<TransactionRecord> {
    return this.offramps.sandboxDeposit(tenant, request.transactionId, request.amount);
  }
}
