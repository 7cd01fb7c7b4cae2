import { Inject, Injectable } from '@nestjs/common';
import { TransactionGet, TransactionList, type TransactionRecord } from '@ramp/contracts';
import type { RpcContext } from '@ramp/messaging';
import { RpcHandler } from '@ramp/service-kit';
import { TransactionsQuery } from './transactions-query';

@Injectable()
export class TransactionsNatsController {
  constructor(@Inject(TransactionsQuery) private readonly query: TransactionsQuery) {}

  @RpcHandler(TransactionList.contract)
  async list(request: TransactionList.Request, { tenant }: RpcContext): Promise<TransactionList.Response> {
    return this.query.list(tenant, request);
  }

  @RpcHandler(TransactionGet.contract)
  async get(request: TransactionGet.Request, { tenant }: RpcContext): Promise<TransactionRecord> {
    return this.query.get(tenant, request.transactionId);
  }
}
