import { Migration } from '@ramp/database';

/**
 * The treasury's reservations: what a live on-ramp's swap is about to spend of the treasury's free inventory on a chain
 * (ChainBooks.reserve), taken under a lock per chain and token so that two on-ramps never both count the same CNGN.
 * A reservation stands until the swap it names is final (booked: released_at) and counts for an hour at the most.
 */
export class Migration20261213000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table if not exists ledger.treasury_reservations (
        reservation_id text primary key,
        environment text not null,
        chain text not null,
        token_symbol text not null,
        amount numeric not null check (amount > 0),
        created_at timestamptz not null default now(),
        released_at timestamptz
      );`);
    this.addSql(`
      create index if not exists treasury_reservations_open
        on ledger.treasury_reservations (environment, chain, token_symbol, created_at) where released_at is null;`);
  }
}
