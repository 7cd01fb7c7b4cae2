import { Migration } from '@ramp/database';

/**
 * What each hot-wallet swap asks of the pools, beside its send: the tokens, the amounts, who receives the output and the
 * ledger account it is booked against; `amount_out` once confirmed, from the receipt (for send.finished and holdings).
 */
export class Migration20261125000003 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table chain.swaps (
        chain text not null,
        send_key text not null,
        from_token text not null,
        to_token text not null,
        amount_in numeric not null check (amount_in > 0),
        minimum_out numeric not null check (minimum_out >= 0),
        to_address text not null,
        account text not null,
        amount_out numeric,
        created_at timestamptz not null default now(),
        primary key (chain, send_key)
      );`);
  }
}
