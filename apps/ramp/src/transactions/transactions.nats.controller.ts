import { Inject, Injectable } from '@nestjs/common';
import { RampTransactionGet, type TransactionRecord } from '@ramp/contracts';
import type { RpcContext } from '@ramp/messaging';
import { RpcHandler } from '@ramp/service-kit';
import { OfframpService } from '../offramp/offramp.service';
import { OnrampService } from '../onramp/onramp.service';

/** GET /onramp/{id} and GET /offramp/{id}: the transaction folded from its events, for its own tenant only. */
@Injectable()
export class TransactionsNatsController {
  constructor(
    @Inject(OfframpService) private readonly offramps: OfframpService,
    @Inject(OnrampService) private readonly onramps: OnrampService,
  ) {}

  @RpcHandler(RampTransactionGet.contract)
  async get(request: RampTransactionGet.Request, { tenant }: RpcContext): Promise<TransactionRecord> {
    const view = request.type === 'onramp' ? await this.onramps.get(tenant, request.transactionId) : await this.offramps.get(tenant, request.transactionId);
    return view as unknown as TransactionRecord;
  }
}
