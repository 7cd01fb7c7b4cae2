import { Migration } from '@ramp/database';

/**
 * A managed wallet's operation that was final and then taken out of the chain by a reorganisation is open again, to
 * land once more: `reorged_at` says so, so that it is submitted again even while the chain's sends are paused (its
 * effects are in the books already) and its second landing appends no second `send.finished`.
 */
export class Migration20261207000002 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table chain.account_operations add column if not exists reorged_at timestamptz;`);
  }
}
