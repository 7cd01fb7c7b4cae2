import { Migration } from '@ramp/database';

/**
 * A managed wallet's account may send back a token the chain does not list (`kind = 'return'`, `npm run chain:ops --
 * return-token`): someone sent it there by mistake, and nothing else moves it.
 */
export class Migration20261209000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table chain.account_operations drop constraint account_operations_kind_check;`);
    this.addSql(`alter table chain.account_operations add constraint account_operations_kind_check check (kind in ('transfer', 'swap', 'return'));`);
  }
}
