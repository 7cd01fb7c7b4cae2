import { Controller, Inject } from '@nestjs/common';
import { invalidField, TreasuryInventory, TreasuryReserve, type Tenant } from '@ramp/contracts';
import { dec } from '@ramp/money';
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

  /** A live on-ramp's swap reserving the treasury's CNGN before it spends it (the ramp service). */
  @Handles(TreasuryReserve.contract)
  async reserve(@RequestData() request: TreasuryReserve.Request, @CallerTenant() tenant: Tenant): Promise<TreasuryReserve.Response> {
    if (request.environment !== tenant.environment) throw invalidField('environment', `must be the caller's environment, ${tenant.environment}`);
    for (const field of ['chain', 'tokenSymbol', 'reservationId'] as const) {
      if (typeof request[field] !== 'string' || request[field] === '' || request[field].length > 200) throw invalidField(field, 'must be a non-empty string');
    }
    if (typeof request.amount !== 'string' || !/^\d+(\.\d+)?$/.test(request.amount) || !dec(request.amount).gt(0))
      throw invalidField('amount', 'must be a positive decimal string');
    return this.books.reserve({ ...request, environment: tenant.environment });
  }
}
