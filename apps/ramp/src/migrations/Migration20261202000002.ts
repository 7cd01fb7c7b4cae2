import { Migration } from '@ramp/database';

/**
 * Partner events are tried again rather than closed when nothing takes them yet: `next_attempt_at` (the pass takes
 * only those due), `attempts` and `last_error` (a handler that fails is retried with backoff and parked after ten),
 * and `body_sha256` (a resend under the same key with another body is reported, not silently dropped).
 */
export class Migration20261202000002 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "ramp"."partner_events"
      add column if not exists "attempts" integer not null default 0,
      add column if not exists "next_attempt_at" timestamptz not null default now(),
      add column if not exists "last_error" text,
      add column if not exists "body_sha256" text;`);
    this.addSql(`drop index if exists "ramp"."partner_events_unprocessed";`);
    this.addSql(`create index if not exists "partner_events_due" on "ramp"."partner_events" ("next_attempt_at", "id") where "processed_at" is null;`);
  }
}
