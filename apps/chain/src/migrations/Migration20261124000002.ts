import { Migration } from '@ramp/database';

/**
 * What each hot-wallet transfer moves, beside its send (whose `data` only a decoder could read): the token, the amount
 * and the ledger account it is charged to, for the send.finished event that books it.
 */
export class Migration20261124000002 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table chain.transfers (
        chain text not null,
        send_key text not null,
        token_symbol text not null,
        amount numeric not null check (amount > 0),
        to_address text not null,
        account text not null,
        created_at timestamptz not null default now(),
        primary key (chain, send_key)
      );`);
  }
}
