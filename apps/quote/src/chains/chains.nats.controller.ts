import { Controller, Inject } from '@nestjs/common';
import { chainsOf } from '@ramp/chains';
import { ChainList, type Tenant } from '@ramp/contracts';
import { CallerTenant, Handles } from '@ramp/messaging';
import { ChainMarkets } from './chain-markets';

@Controller()
export class ChainsNatsController {
  constructor(@Inject(ChainMarkets) private readonly markets: ChainMarkets) {}

  /** The registry's chains as the caller's environment has them: real networks with their chain ids and contracts. */
  @Handles(ChainList.contract)
  async list(@CallerTenant() tenant: Tenant): Promise<ChainList.Response> {
    return chainsOf(await this.markets.networks(tenant));
  }
}
