import { Controller, Inject } from '@nestjs/common';
import { TransactionGet, TransactionList, type Tenant, type TransactionRecord } from '@ramp/contracts';
import { CallerTenant, Handles, RequestData } from '@ramp/messaging';
import { TransactionsQuery } from './transactions-query';

@Controller()
export class TransactionsNatsController {
  constructor(@Inject(TransactionsQuery) private readonly query: TransactionsQuery) {}

  @Handles(TransactionList.contract)
  async list(@RequestData() request: TransactionList.Request, @CallerTenant() tenant: Tenant): Promise<TransactionList.Response> {
    return this.query.list(tenant, request);
  }

  @Handles(TransactionGet.contract)
  async get(@RequestData() request: TransactionGet.Request, @CallerTenant() tenant: Tenant): Promise<TransactionRecord> {
    return this.query.get(tenant, request.transactionId);
  }
}
