import { Migration } from '@ramp/database';

/**
 * A refund names the deposit it gives back (ChainTransfer's `refundOf`): at most one transfer per deposit, whatever its
 * key, so that a deposit can never be given back twice.
 */
export class Migration20261129000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table chain.transfers add column refund_of text;`);
    this.addSql(`create unique index transfers_one_refund_per_deposit on chain.transfers (chain, refund_of) where refund_of is not null;`);
  }
}
