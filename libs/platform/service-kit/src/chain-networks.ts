import { ChainNetworks, type ChainNetwork, type Environment, type Tenant } from '@ramp/contracts';
import type { RpcClient } from '@ramp/messaging';
import { Expiring } from './expiring';

/** The chain service's networks change only with its settings (a restart): kept this long per environment. */
const NETWORKS_TTL_MS = 60_000;

/**
 * The chain service's networks of each environment (ChainNetworks), for the services that decide by them (which chains
 * have pools): read at most once a minute per environment however many callers, and the last known kept while the
 * chain service does not answer, so that an outage of it does not change what they decide. The first read of an
 * environment that fails fails.
 */
export class ChainNetworksReader {
  private readonly cache = new Expiring<ChainNetwork[]>(NETWORKS_TTL_MS);
  private readonly lastKnown = new Map<Environment, ChainNetwork[]>();

  /** `timeoutMs`: how long a read may wait for the chain service (the RPC client's default when absent). */
  constructor(
    private readonly rpc: Pick<RpcClient, 'call'>,
    private readonly timeoutMs?: number,
  ) {}

  async networks(tenant: Tenant): Promise<ChainNetwork[]> {
    const { environment } = tenant;
    try {
      const networks = await this.cache.get(environment, async () => {
        const answer = await this.rpc.call(
          ChainNetworks.contract,
          tenant,
          { environment },
          { ...(this.timeoutMs !== undefined && { timeoutMs: this.timeoutMs }) },
        );
        return answer.networks;
      });
      this.lastKnown.set(environment, networks);
      return networks;
    } catch (error) {
      const known = this.lastKnown.get(environment);
      if (known) return known;
      throw error;
    }
  }
}
