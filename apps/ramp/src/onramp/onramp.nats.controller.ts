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
    return (await this.onramps.initiate(tenant, request as unknown as Record<string, unknown>, requestId)) as unknown as OnrampInitiate.Response;
  }

  @Handles(SandboxPayment.contract)
  async pay(@RequestData() request: SandboxPayment.Request, @CallerTenant() tenant: Tenant): Promise<TransactionRecord> {
    return (await this.onramps.sandboxPayment(tenant, request.transactionId, request.amount)) as unknown as TransactionRecord;
  }
}
