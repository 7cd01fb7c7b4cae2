import { Inject, Injectable } from '@nestjs/common';
import { Config } from '@ramp/config';
import { ChainPools, TreasuryInventory, type ChainNetwork, type Tenant } from '@ramp/contracts';
import { RpcClient } from '@ramp/messaging';
import { dec } from '@ramp/money';
import type { HubPools } from '@ramp/pricing';
import { ChainNetworksReader, Expiring } from '@ramp/service-kit';

/**
 * The chain service answers both reads from memory or one round of node reads: a second is plenty, and short enough
 * that a quote whose pools cannot be read falls back to the price feed well within the gateway's own timeout.
 */
const CHAIN_READ_TIMEOUT_MS = 1_000;

/** How long the treasury's inventory is reused for quotes: what a quote checks is at most this old. */
const INVENTORY_MAX_AGE_MS = 2_000;

/**
 * What the quote service knows of the chain service's chains: the networks of each environment (ChainNetworksReader), and
 * the reserves of the pools of those that have them (kept CHAIN_POOLS_MAX_AGE_MS, one request in flight per chain
 * shared by every quote that needs it), so that quotes under load cost the chain service a request per period, not
 * one per quote.
 */
@Injectable()
export class ChainMarkets {
  private readonly networksReader: ChainNetworksReader;
  private readonly poolsCache: Expiring<HubPools>;
  private readonly inventoryCache = new Expiring<TreasuryInventory.Entry[]>(INVENTORY_MAX_AGE_MS);

  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(Config) config: Config,
  ) {
    this.poolsCache = new Expiring(config.int('chainPoolsMaxAgeMs', 0));
    this.networksReader = new ChainNetworksReader(rpc, CHAIN_READ_TIMEOUT_MS);
  }

  /**
   * The treasury's inventory in the tenant's environment (the ledger's, TreasuryInventory), kept INVENTORY_MAX_AGE_MS:
   * a burst of quotes asks the ledger once.
   */
  inventory(tenant: Tenant): Promise<TreasuryInventory.Entry[]> {
    return this.inventoryCache.get(
      tenant.environment,
      async () =>
        (await this.rpc.call(TreasuryInventory.contract, tenant, { environment: tenant.environment }, { timeoutMs: CHAIN_READ_TIMEOUT_MS * 3 })).inventory,
    );
  }

  networks(tenant: Tenant): Promise<ChainNetwork[]> {
    return this.networksReader.networks(tenant);
  }

  /** The pools of each of `chains` that has the platform's pools for the tenant's environment, by chain. */
  async pools(tenant: Tenant, chains: readonly string[]): Promise<Map<string, HubPools>> {
    const networks = await this.networks(tenant);
    const pooled = [...new Set(chains)].filter((chain) => networks.some((network) => network.chain === chain && network.contracts.dex));
    const read = await Promise.all(
      pooled.map((chain) =>
        this.poolsCache.get(`${tenant.environment}:${chain}`, async () => {
          const answer = await this.rpc.call(ChainPools.contract, tenant, { environment: tenant.environment, chain }, { timeoutMs: CHAIN_READ_TIMEOUT_MS });
          return {
            hub: answer.hub,
            blockNumber: BigInt(answer.blockNumber),
            ...(answer.blockTimestamp !== undefined && { blockTimestamp: answer.blockTimestamp }),
            pools: answer.pools.map((pool) => ({
              token: pool.token,
              tokenReserve: BigInt(pool.tokenReserve),
              hubReserve: BigInt(pool.hubReserve),
              ...(pool.average && { average: { hubPerToken: dec(pool.average.hubPerToken), seconds: pool.average.seconds } }),
            })),
          };
        }),
      ),
    );
    return new Map(pooled.map((chain, index) => [chain, read[index]!]));
  }
}
