import { Migration } from '@ramp/database';

/** Quotes: stored, scoped to a tenant, expiring, consumed at most once. */
export class Migration20261122000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create schema if not exists quote;`);
    this.addSql(`
      create table quote.quotes (
        id text primary key,
        organization_id text not null,
        environment text not null check (environment in ('live', 'test')),
        kind text not null check (kind in ('onramp', 'offramp', 'swap', 'transfer')),
        request jsonb not null,
        response jsonb not null,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        consumed_at timestamptz,
        consumed_by text
      );`);
    this.addSql(`create index quotes_expires_at on quote.quotes (expires_at);`);
  }
}
