import { Migration } from '@ramp/database';

/**
 * The notifier's tables: webhook registrations (secrets sealed), deliveries (one per event and target, with the
 * retry schedule's state and a lease so that replicas never send one twice at once), every attempt, and the inbox
 * of its integration-event consumer.
 */
export class Migration20261123100001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create schema if not exists notifier;`);
    this.addSql(`create table notifier.webhooks (
       id text primary key,
       organization_id text not null,
       environment text not null check (environment in ('live', 'test')),
       url text not null,
       events text[] not null,
       description text,
       secret_sealed text not null,
       is_active boolean not null default true,
       created_at timestamptz not null,
       deleted_at timestamptz
     );`);
    this.addSql(`create index webhooks_of_tenant on notifier.webhooks (organization_id, environment) where deleted_at is null;`);
    this.addSql(`create table notifier.deliveries (
       id text primary key,
       organization_id text not null,
       environment text not null,
       webhook_id text references notifier.webhooks (id),
       target_url text not null,
       key_id text,
       event_id text not null,
       event text not null,
       transaction_id text,
       body text not null,
       status text not null check (status in ('pending', 'succeeded', 'failed', 'cancelled')),
       attempts integer not null default 0,
       max_attempts integer not null,
       next_attempt_at timestamptz,
       lease_until timestamptz,
       lease_token uuid,
       created_at timestamptz not null,
       updated_at timestamptz not null,
       check ((webhook_id is null) = (key_id is not null))
     );`);
    // One delivery per event and target: a callback is the target 'callback'.
    this.addSql(`create unique index deliveries_once on notifier.deliveries (event_id, coalesce(webhook_id, 'callback'));`);
    this.addSql(`create index deliveries_due on notifier.deliveries (next_attempt_at) where status = 'pending';`);
    this.addSql(`create index deliveries_of_webhook on notifier.deliveries (webhook_id, created_at desc, id desc);`);
    this.addSql(`create table notifier.delivery_attempts (
       delivery_id text not null references notifier.deliveries (id),
       attempt integer not null,
       started_at timestamptz not null,
       duration_ms integer not null,
       status_code integer,
       error text,
       primary key (delivery_id, attempt)
     );`);
    this.addSql(`create table notifier.inbox (
       consumer text not null,
       event_id uuid not null,
       processed_at timestamptz not null default now(),
       primary key (consumer, event_id)
     );`);
  }
}
