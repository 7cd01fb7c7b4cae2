import { AppError, invalidField, type Environment } from '@ramp/contracts';
import { readHubPools, type DexContracts } from '@ramp/evm';
import type { HubPools } from '@ramp/pricing';
import { Expiring } from '@ramp/service-kit';
import type { ChainContext } from '../context/chain-context';
import type { ChainToken } from '../context/platform-contracts';
import type { PoolAverages } from './pool-averages';

/**
 * The platform's pools, for a swap of two of their tokens on `where`'s chain: UNSUPPORTED_CHAIN where it has none,
 * a 4xx naming the field for a token without a pool or a swap of a token to itself.
 */
export function swapDex(
  dex: DexContracts | undefined,
  where: { chain: string; environment: Environment },
  terms: { fromToken: ChainToken; toToken: ChainToken },
): DexContracts {
  if (!dex) throw new AppError('UNSUPPORTED_CHAIN', `${where.chain} has no pools for ${where.environment} keys`, 'chain');
  for (const [field, token] of [
    ['fromToken', terms.fromToken],
    ['toToken', terms.toToken],
  ] as const) {
    if (!dex.tokens[token.symbol] || (token.symbol !== dex.hub && !dex.pairs[token.symbol]))
      throw invalidField(field, `${token.symbol} has no pool on ${where.chain}`, 'UNSUPPORTED_TOKEN');
  }
  if (terms.fromToken.symbol === terms.toToken.symbol) throw invalidField('toToken', 'must differ from fromToken');
  return dex;
}

/** Reads of a chain's pools: what quotes are priced from. */
export class Pools {
  private readonly reads: Expiring<HubPools>;

  constructor(
    private readonly context: ChainContext,
    /** How long a read of the pools' reserves answers quotes. */
    maxAgeMs: number,
    /** A live chain's pools' averages, read with their reserves. */
    private readonly averages?: PoolAverages,
  ) {
    this.reads = new Expiring(maxAgeMs);
  }

  /**
   * The pools' reserves at the latest block, read at most once per CHAIN_POOLS_MAX_AGE_MS whatever the number of callers
   * (they share the read in flight): quotes under load cost the node one round of reads per period, not one per quote.
   * On a live chain, each pool with an average carries it, up to the same block.
   */
  async read(): Promise<HubPools> {
    const { context } = this;
    await context.findPools();
    const dex = context.dex;
    if (!dex) throw new AppError('UNSUPPORTED_CHAIN', `${context.chain} has no pools for ${context.environment} keys`, 'chain');
    return this.reads.get(context.id, async () => {
      const blockNumber = await context.client.getBlockNumber({ cacheTime: 0 });
      const [read, averaged] = await Promise.all([readHubPools(context.client, dex, blockNumber), this.averages?.at(dex, blockNumber)]);
      if (!averaged) return read;
      const { averages, blockTimestamp } = averaged;
      return {
        ...read,
        ...(blockTimestamp !== undefined && { blockTimestamp }),
        pools: read.pools.map((pool) => (averages.has(pool.token) ? { ...pool, average: averages.get(pool.token)! } : pool)),
      };
    });
  }

  /**
   * On a local chain, whether every pool has liquidity (the deployment's last step); elsewhere always: a live DEX's
   * pools are a third party's, and anyone may create an empty one.
   */
  async seeded(): Promise<boolean> {
    const { dex, client, network } = this.context;
    if (!dex || !network.faucet) return true;
    const read = await readHubPools(client, dex, await client.getBlockNumber({ cacheTime: 0 })).catch(() => undefined);
    return read !== undefined && read.pools.every((pool) => pool.hubReserve > 0n && pool.tokenReserve > 0n);
  }
}
