import { Migration } from '@ramp/database';

/**
 * The sponsorship budget's reserve is what the chain's last landed operations cost (AccountOperations'
 * judgeSponsorship): read newest first from this index, whatever their age and however many the chain has had.
 */
export class Migration20261207000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index if not exists account_operations_landed on chain.account_operations (chain, id) where gas_cost is not null;`);
  }
}
