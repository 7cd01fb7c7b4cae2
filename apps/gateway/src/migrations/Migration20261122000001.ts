import { Migration } from '@ramp/database';

/** Organizations, API keys (hash only, sealed secret) and stored Idempotency-Key responses. */
export class Migration20261122000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create schema if not exists gateway;`);
    this.addSql(`
      create table gateway.organizations (
        id text primary key,
        name text not null unique,
        created_at timestamptz not null
      );`);
    this.addSql(`
      create table gateway.api_keys (
        id text primary key,
        organization_id text not null references gateway.organizations (id),
        environment text not null check (environment in ('live', 'test')),
        key_hash text not null unique,
        key_prefix text not null,
        secret_sealed text not null,
        plan text not null check (plan in ('free', 'growth', 'enterprise')),
        per_minute integer not null check (per_minute > 0),
        burst_per_second integer not null check (burst_per_second > 0),
        allowed_ips text[] not null default '{}',
        created_at timestamptz not null,
        revoked_at timestamptz
      );`);
    this.addSql(`
      create table gateway.idempotency_keys (
        organization_id text not null,
        environment text not null,
        idempotency_key text not null,
        request_hash text not null,
        state text not null check (state in ('in_progress', 'done')),
        response_status integer,
        response_body jsonb,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        primary key (organization_id, environment, idempotency_key)
      );`);
    this.addSql(`create index idempotency_keys_expires_at on gateway.idempotency_keys (expires_at);`);
  }
}
