import { Migration } from '@ramp/database';

/**
 * Why a hot wallet's sends wait (its queue halted, paused, or the wallet unable to pay), as the replica running the
 * chain last saw it, so that a caller waiting on a send through any replica gets that reason instead of a timeout.
 */
export class Migration20261129000004 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table chain.chain_senders add column if not exists waiting text;`);
  }
}
