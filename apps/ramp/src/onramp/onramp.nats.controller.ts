import { Controller, Inject } from '@nestjs/common';
import { OnrampInitiate, SandboxPayment, type Tenant, type TransactionRecord } from '@ramp/contracts';
import { CallerTenant, Handles, RequestData, RequestId } from '@ramp/messaging';
import { OnrampService } from './onramp.service';

@Controller()
export class OnrampNatsController {
  constructor(@Inject(OnrampService) private readonly onramps: OnrampService) {}

  @Handles(OnrampInitiate.contract)
  async initiate(
    @RequestData() request: OnrampInitiate.Request,
    @CallerTenant() tenant: Tenant,
    @RequestId() requestId: string | undefined,
  ): Promise<OnrampInitiate.Response> {
    return this.onramps.initiate(tenant, { ...request }, requestId);
  }

  @Handles(SandboxPayment.contract)
  async pay(@RequestData() request: SandboxPayment.Request, @CallerTenant() tenant: Tenant): Promise<TransactionRecord> {
    return this.onramps.sandboxPayment(tenant, request.transactionId, request.amount);
  }
}
