import { Migration } from '@ramp/database';

/**
 * Chains whose hot wallet's outbound sends are paused, and why (ChainSendsPause: the ledger's reconciliation found the
 * books and the chain apart beyond noise). Read by the replica that runs the chain at every pass, so a pause holds
 * across restarts and replicas until it is lifted.
 */
export class Migration20261129000003 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table chain.send_pauses (
        chain text primary key,
        reason text not null,
        paused_at timestamptz not null default now()
      );`);
  }
}
