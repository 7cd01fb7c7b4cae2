import { Migration } from '@ramp/database';

/**
 * What each reversed deposit cost: a reorganisation took back credit `credit` of a deposit, from its owner's account as
 * far as it held it, and `shortfall` (a wallet that no longer held it all, or a deposit already refunded) from the
 * reorganisation loss account. A later credit of the same deposit (the chain took it back in) recovers that first.
 */
export class Migration20261129000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table ledger.deposit_reversals (
        deposit_id text not null,
        credit integer not null check (credit >= 0),
        owner text not null,
        asset text not null,
        amount numeric not null check (amount > 0),
        shortfall numeric not null check (shortfall >= 0 and shortfall <= amount),
        created_at timestamptz not null default now(),
        primary key (deposit_id, credit)
      );`);
  }
}
