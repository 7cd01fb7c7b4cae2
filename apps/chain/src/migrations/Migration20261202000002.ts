import { Migration } from '@ramp/database';

/**
 * A transfer from the hot wallet into a managed wallet's own account (ChainTransfer `toWallet`: an on-ramp's delivery,
 * a failed route's way back) moves funds within the platform's holdings: recorded with the wallet (`to_wallet`), it is
 * neither an outflow nor, when it arrives, a deposit.
 */
export class Migration20261202000002 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table chain.transfers add column to_wallet text;`);
  }
}
