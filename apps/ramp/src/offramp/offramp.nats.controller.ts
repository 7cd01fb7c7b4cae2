import { Inject, Injectable } from '@nestjs/common';
import { OfframpInitiate, SandboxDeposit, type TransactionRecord } from '@ramp/contracts';
import type { RpcContext } from '@ramp/messaging';
import { RpcHandler } from '@ramp/service-kit';
import { OfframpService } from './offramp.service';

@Injectable()
export class OfframpNatsController {
  constructor(@Inject(OfframpService) private readonly offramps: OfframpService) {}

  @RpcHandler(OfframpInitiate.contract)
  async initiate(request: OfframpInitiate.Request, { tenant, requestId }: RpcContext): Promise<OfframpInitiate.Response> {
    return this.offramps.initiate(tenant, request, requestId);
  }

  @RpcHandler(SandboxDeposit.contract)
  async deposit(request: SandboxDeposit.Request, { tenant }: RpcContext): Promise<TransactionRecord> {
    return (await this.offramps.sandboxDeposit(tenant, request.transactionId, request.amount)) as unknown as TransactionRecord;
  }
}
