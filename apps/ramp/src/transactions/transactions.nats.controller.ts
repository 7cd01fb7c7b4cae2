import { Controller, Inject } from '@nestjs/common';
import { RampTransactionGet, type Tenant, type TransactionRecord } from '@ramp/contracts';
import { CallerTenant, Handles, RequestData } from '@ramp/messaging';
import { OfframpService } from '../offramp/offramp.service';
import { OnrampService } from '../onramp/onramp.service';

/** GET /onramp/{id} and GET /offramp/{id}: the transaction folded from its events, for its own tenant only. */
@Controller()
export class TransactionsNatsController {
  constructor(
    @Inject(OfframpService) private readonly offramps: OfframpService,
    @Inject(OnrampService) private readonly onramps: OnrampService,
  ) {}

  @Handles(RampTransactionGet.contract)
  async get(@RequestData() request: RampTransactionGet.Request, @CallerTenant() tenant: Tenant): Promise<TransactionRecord> {
    return request.type === 'onramp' ? this.onramps.get(tenant, request.transactionId) : this.offramps.get(tenant, request.transactionId);
  }
}
