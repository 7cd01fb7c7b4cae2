import { Migration } from '@ramp/database';

/**
 * Readings of a live chain's DEX pools' price accumulators (PoolAverages), taken by the chain's leader every tenth of
 * POOL_AVERAGE_SECONDS and kept three spans: a pool's time-weighted average is its accumulator now against the newest
 * reading at least one span old. Never updated; older readings are deleted by the same leader.
 */
export class Migration20261212000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table chain.pool_observations (
      chain text not null,
      pair text not null,
      token text not null,
      block_number bigint not null,
      block_timestamp bigint not null,
      cumulative numeric(78, 0) not null,
      primary key (chain, pair, block_number)
    );`);
    this.addSql(`create index pool_observations_by_time on chain.pool_observations (chain, pair, block_timestamp desc);`);
  }
}
