import { Migration } from '@ramp/database';

/**
 * A hot-wallet swap paid into a managed wallet's own account (ChainSwap `toWallet`: a route's last leg into the wallet)
 * moves funds within the platform's holdings: recorded with the wallet (`to_wallet`), its output is never credited as a
 * deposit when it arrives. And an owner has one deposit address per chain: two concurrent requests of different kinds
 * cannot both give one.
 */
export class Migration20261202000003 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table chain.swaps add column to_wallet text;`);
    this.addSql(`create unique index deposit_addresses_owner on chain.deposit_addresses (chain, owner);`);
  }
}
