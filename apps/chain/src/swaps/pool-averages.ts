import { readPoolObservations, type DexContracts } from '@ramp/evm';
import { averageBetween, type PoolAverage, type PoolObservation } from '@ramp/pricing';
import { CHAIN_SCHEMA, type ChainContext } from '../context/chain-context';

/**
 * The time-weighted average price of each of a live chain's DEX pools over the last POOL_AVERAGE_SECONDS, what a live
 * quote judges a pool's price by (a pool someone holds away from its average is not priced from). A third party's pool
 * has no price feed to be checked against, and its own spot price is what a trade of one block moves; its average over
 * half an hour is not, without holding it away from the market (and paying the arbitrageurs) for as long.
 *
 * The chain's leader reads every pool's accumulator every tenth of the span (`tick`) and keeps three spans of readings in
 * `chain.pool_observations`, so that any replica (and one just started) averages from the database, and no node is
 * asked for past state (a full node keeps a few minutes of it). A reading at a block a reorganisation later replaces
 * stays: it is one of about ten over the span, and its error is a block's share of it.
 */
export class PoolAverages {
  private observedAt = 0;

  constructor(
    private readonly context: ChainContext,
    /** POOL_AVERAGE_SECONDS: the span each average covers, at least. */
    readonly seconds: number,
  ) {
    if (!Number.isInteger(seconds) || seconds < 10) throw new RangeError(`the pools' average span must be at least 10 seconds, got ${seconds}`);
  }

  /** How often the leader reads the accumulators: ten readings per span. */
  get intervalMs(): number {
    return (this.seconds * 1000) / 10;
  }

  /**
   * The leader's part of a pass: once per interval, a reading of every pool with liquidity at the newest block, and the
   * readings older than three spans deleted. A chain whose pools are not found yet reads nothing.
   */
  async tick(): Promise<void> {
    if (Date.now() - this.observedAt < this.intervalMs) return;
    const { context } = this;
    await context.findPools();
    const dex = context.dex;
    if (!dex) return;
    const readings = await readPoolObservations(context.client, dex, await context.client.getBlockNumber({ cacheTime: 0 }));
    if (readings.length > 0) {
      const timestamp = readings[0]!.timestamp;
      await context.pool.query(
        `with readings as (
           select * from unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::numeric[]) as r(pair, token, block_number, block_timestamp, cumulative)
         ), kept as (
           insert into ${CHAIN_SCHEMA}.pool_observations (chain, pair, token, block_number, block_timestamp, cumulative)
           select $1, pair, token, block_number, block_timestamp, cumulative from readings
           on conflict do nothing
         )
         delete from ${CHAIN_SCHEMA}.pool_observations where chain = $1 and block_timestamp < $7`,
        [
          context.id,
          readings.map((reading) => dex.pairs[reading.token]!.toLowerCase()),
          readings.map((reading) => reading.token),
          readings.map((reading) => reading.blockNumber.toString()),
          readings.map((reading) => reading.timestamp.toString()),
          readings.map((reading) => reading.cumulative.toString()),
          (timestamp - BigInt(3 * this.seconds)).toString(),
        ],
      );
    }
    this.observedAt = Date.now();
  }

  /**
   * Each pool's average from the newest reading at least a span before `blockNumber` (and at most three spans) to its
   * accumulator at `blockNumber`, by token. A pool with no such reading (a chain watched for less than a span, a pool
   * created since, a leader that could not read) has none: it cannot be judged. With them, the block's timestamp
   * (undefined when no pool could be read), which tells a reader how old the prices are.
   */
  async at(dex: DexContracts, blockNumber: bigint): Promise<{ averages: Map<string, PoolAverage>; blockTimestamp?: number }> {
    const now = await readPoolObservations(this.context.client, dex, blockNumber);
    const averages = new Map<string, PoolAverage>();
    if (now.length === 0) return { averages };
    const timestamp = now[0]!.timestamp;
    const { rows } = await this.context.pool.query<{ pair: string; token: string; block_number: string; block_timestamp: string; cumulative: string }>(
      `select distinct on (pair) pair, token, block_number::text, block_timestamp::text, cumulative::text
         from ${CHAIN_SCHEMA}.pool_observations
        where chain = $1 and block_timestamp <= $2 and block_timestamp >= $3
        order by pair, block_timestamp desc`,
      [this.context.id, (timestamp - BigInt(this.seconds)).toString(), (timestamp - BigInt(3 * this.seconds)).toString()],
    );
    for (const reading of now) {
      const row = rows.find((candidate) => candidate.pair === dex.pairs[reading.token]!.toLowerCase() && candidate.token === reading.token);
      if (!row) continue;
      const older: PoolObservation = {
        token: row.token,
        blockNumber: BigInt(row.block_number),
        timestamp: BigInt(row.block_timestamp),
        cumulative: BigInt(row.cumulative),
      };
      const average = averageBetween(older, reading);
      if (average) averages.set(reading.token, average);
    }
    return { averages, blockTimestamp: Number(timestamp) };
  }
}
