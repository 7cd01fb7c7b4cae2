import { Controller, Inject } from '@nestjs/common';
import { RouteTransactionGet, type Tenant, type TransactionRecord } from '@ramp/contracts';
import { CallerTenant, Handles, RequestData } from '@ramp/messaging';
import { RouteService } from '../route/route.service';

/** GET /swap/{id} and GET /transfer/{id}: the transaction folded from its events, for its own tenant only. */
@Controller()
export class TransactionsNatsController {
  constructor(@Inject(RouteService) private readonly routes: RouteService) {}

  @Handles(RouteTransactionGet.contract)
  async get(@RequestData() request: RouteTransactionGet.Request, @CallerTenant() tenant: Tenant): Promise<TransactionRecord> {
    const kind = request.type === 'transfer' ? 'transfer' : 'swap';
    return this.routes.get(tenant, kind, request.transactionId);
  }
}
