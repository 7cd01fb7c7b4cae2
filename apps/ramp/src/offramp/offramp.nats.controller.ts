import { Inject, Injectable } from '@nestjs/common';
import { OfframpInitiate, RampTransactionGet, SandboxDeposit, notFound, type TransactionRecord } from '@ramp/contracts';
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

  @RpcHandler(RampTransactionGet.contract)
  async get(request: RampTransactionGet.Request, { tenant }: RpcContext): Promise<TransactionRecord> {
    if (request.type !== 'offramp') throw notFound(`Transaction ${String(request.transactionId)} was not found`);
    return (await this.offramps.get(tenant, request.transactionId)) as unknown as TransactionRecord;
  }

  @RpcHandler(SandboxDeposit.contract)
  async deposit(request: SandboxDeposit.Request, { tenant }: RpcContext): Promise<TransactionRecord> {
    return (await this.offramps.sandboxDeposit(tenant, request.transactionId, request.amount)) as unknown as TransactionRecord;
  }
}
