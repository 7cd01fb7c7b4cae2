import { Migration } from '@ramp/database';

/**
 * Send lanes (docs/chains.md, "Send lanes"): the hot wallet tops its lanes' gas up with sends of a kind of their own,
 * `gas`, which a lane's readiness and the next top-up look up by the lane's address (an index like the approvals').
 */
export class Migration20261201000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table chain.chain_sends
        drop constraint chain_sends_kind,
        add constraint chain_sends_kind check (kind in ('sweep', 'transfer', 'swap', 'approve', 'bridge', 'faucet', 'inventory', 'gas'));`);
    this.addSql(`create index chain_sends_lane_gas on chain.chain_sends (chain, to_address, id) where kind = 'gas';`);
  }
}
