import { Inject, Injectable } from '@nestjs/common';
import { OnrampInitiate, SandboxPayment, type TransactionRecord } from '@ramp/contracts';
import type { RpcContext } from '@ramp/messaging';
import { RpcHandler } from '@ramp/service-kit';
import { OnrampService } from './onramp.service';

@Injectable()
export class OnrampNatsController {
  constructor(@Inject(OnrampService) private readonly onramps: OnrampService) {}

  @RpcHandler(OnrampInitiate.contract)
  async initiate(request: OnrampInitiate.Request, { tenant, requestId }: RpcContext): Promise<TransactionRecord> {
    return (await this.onramps.initiate(tenant, request as unknown as Record<string, unknown>, requestId)) as unknown as TransactionRecord;
  }

  @RpcHandler(SandboxPayment.contract)
  async pay(request: SandboxPayment.Request, { tenant }: RpcContext): Promise<TransactionRecord> {
    return (await this.onramps.sandboxPayment(tenant, request.transactionId, request.amount)) as unknown as TransactionRecord;
  }
}
