import { Migration } from '@ramp/database';

/**
 * The approvals of the hot wallet found by an index: before a swap or a bridge deposit, ChainContext.approveSpender
 * looks up the last approval of its spender for its token, which read every send of the chain (0.45 ms a look under
 * the mixed load, and growing with the table; docs/profiles).
 */
export class Migration20261130000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index chain_sends_approvals on chain.chain_sends (chain, to_address, id) where kind = 'approve';`);
  }
}
