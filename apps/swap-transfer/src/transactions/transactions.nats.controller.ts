import { Inject, Injectable } from '@nestjs/common';
import { RouteTransactionGet, type TransactionRecord } from '@ramp/contracts';
import type { RpcContext } from '@ramp/messaging';
import { RpcHandler } from '@ramp/service-kit';
import { RouteService } from '../route/route.service';

/** GET /swap/{id} and GET /transfer/{id}: the transaction folded from its events, for its own tenant only. */
@Injectable()
export class TransactionsNatsController {
  constructor(@Inject(RouteService) private readonly routes: RouteService) {}

  @RpcHandler(RouteTransactionGet.contract)
  async get(request: RouteTransactionGet.Request, { tenant }: RpcContext): Promise<TransactionRecord> {
    const kind = request.type === 'transfer' ? 'transfer' : 'swap';
    return (await this.routes.get(tenant, kind, request.transactionId)) as unknown as TransactionRecord;
  }
}
