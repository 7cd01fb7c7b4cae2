import { Controller, Inject } from '@nestjs/common';
import { chainsOf } from '@ramp/chains';
import { ChainList, ChainNetworks, type Environment, type Tenant } from '@ramp/contracts';
import { CallerTenant, Handles, RpcClient } from '@ramp/messaging';

/** The chain service's networks change only with its settings (a restart): kept this long per environment. */
const NETWORKS_TTL_MS = 60_000;

@Controller()
export class ChainsNatsController {
  private readonly cache = new Map<Environment, { at: number; networks: ChainNetworks.Response['networks'] }>();

  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  /** The registry's chains as the caller's environment has them: real networks with their chain ids and contracts. */
  @Handles(ChainList.contract)
  async list(@CallerTenant() tenant: Tenant): Promise<ChainList.Response> {
    const cached = this.cache.get(tenant.environment);
    if (cached && Date.now() - cached.at < NETWORKS_TTL_MS) return chainsOf(cached.networks);
    const { networks } = await this.rpc.call(ChainNetworks.contract, tenant, { environment: tenant.environment });
    this.cache.set(tenant.environment, { at: Date.now(), networks });
    return chainsOf(networks);
  }
}
