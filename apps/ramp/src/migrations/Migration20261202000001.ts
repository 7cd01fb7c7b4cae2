import { Migration } from '@ramp/database';

/**
 * Bank partners' events (Paystack's `transfer.*`, `charge.success`), each recorded once before the partner is
 * answered 200 and processed from here: `event_key` is the event and the partner's reference of what it is about, so a
 * resend is the same row; `processed_at` null is what is still to do (after a crash, the next pass does it).
 */
export class Migration20261202000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "ramp"."partner_events" (
      "id" bigint generated always as identity primary key,
      "provider" text not null,
      "event_key" text not null,
      "event" text not null,
      "reference" text,
      "body" jsonb not null,
      "received_at" timestamptz not null default now(),
      "processed_at" timestamptz,
      "outcome" text,
      constraint "partner_events_key" unique ("provider", "event_key")
    );`);
    this.addSql(`create index if not exists "partner_events_unprocessed" on "ramp"."partner_events" ("id") where "processed_at" is null;`);
  }
}
