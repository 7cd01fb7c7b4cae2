import { Controller, Inject } from '@nestjs/common';
import { invalidField, TreasuryInventory, type Tenant } from '@ramp/contracts';
import { CallerTenant, Handles, RequestData } from '@ramp/messaging';
import { ChainBooks } from './chain-books';

/**
 * The treasury's inventory, asked by the quote service before it promises a live on-ramp the treasury's CNGN
 * (INSUFFICIENT_LIQUIDITY). Computed on each request from the chain service's holdings and the ledger's liabilities,
 * as the reconciliation does: the caller keeps what it is answered for a moment.
 */
@Controller()
export class TreasuryNatsController {
  constructor(@Inject(ChainBooks) private readonly books: ChainBooks) {}

  @Handles(TreasuryInventory.contract)
  async inventory(@RequestData() request: TreasuryInventory.Request, @CallerTenant() tenant: Tenant): Promise<TreasuryInventory.Response> {
    // A key's service asks of its own environment only: a test key never learns the live treasury.
    if (request.environment !== tenant.environment) throw invalidField('environment', `must be the caller's environment, ${tenant.environment}`);
    return { environment: tenant.environment, inventory: await this.books.inventory(tenant.environment) };
  }
}
