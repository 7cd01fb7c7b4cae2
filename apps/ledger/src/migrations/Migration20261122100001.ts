import { Migration } from '@ramp/database';

/**
 * The ledger: managed wallets, and a double-entry journal (entries of postings that sum to zero per asset) with the
 * balance of every account kept beside it in the same transaction. Wallet, held and revenue balances can never go
 * negative (a CHECK, so the database refuses an overdraft whatever the code does); external accounts may.
 */
export class Migration20261122100001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create schema if not exists ledger;`);
    this.addSql(`
      create table ledger.wallets (
        id text primary key,
        organization_id text not null,
        environment text not null check (environment in ('live', 'test')),
        chain text not null check (chain in ('base', 'bsc')),
        address text not null unique,
        label text,
        created_at timestamptz not null
      );`);
    this.addSql(`create index wallets_tenant on ledger.wallets (organization_id, environment, created_at desc);`);
    this.addSql(`
      create table ledger.entries (
        id text primary key,
        kind text not null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`
      create table ledger.postings (
        id bigint generated always as identity primary key,
        entry_id text not null references ledger.entries (id),
        account text not null,
        asset text not null,
        amount numeric not null check (amount <> 0)
      );`);
    this.addSql(`create index postings_entry on ledger.postings (entry_id);`);
    this.addSql(`
      create table ledger.balances (
        account text not null,
        asset text not null,
        amount numeric not null,
        may_go_negative boolean not null,
        primary key (account, asset),
        constraint balance_not_negative check (may_go_negative or amount >= 0)
      );`);
    this.addSql(`
      create table ledger.holds (
        id text primary key,
        organization_id text not null,
        environment text not null,
        wallet_id text not null references ledger.wallets (id),
        asset text not null,
        amount numeric not null check (amount > 0),
        status text not null check (status in ('held', 'captured', 'released')),
        destination text,
        created_at timestamptz not null default now(),
        settled_at timestamptz
      );`);
    // The journal is append-only, like the event logs.
    this.addSql(`
      create function ledger.refuse_journal_change() returns trigger language plpgsql as $$
      begin
        raise exception 'the ledger journal is append-only: % on %.% is refused', tg_op, tg_table_schema, tg_table_name
          using errcode = 'insufficient_privilege';
      end $$;`);
    this.addSql(`create trigger postings_append_only before update or delete on ledger.postings for each row execute function ledger.refuse_journal_change();`);
    this.addSql(`create trigger entries_append_only before update or delete on ledger.entries for each row execute function ledger.refuse_journal_change();`);
  }
}
