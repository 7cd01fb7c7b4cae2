import { Migration } from '@ramp/database';

/**
 * The transactions read model no longer keeps the services' folded state: each event carries the Transaction as it is
 * after it, and a row is that view at its stream version (see projectTransactionEvents).
 */
export class Migration20261126120001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table ledger.transactions drop column if exists state;`);
  }
}
