import { Migration } from '@ramp/database';

/**
 * Live on-ramps' collections. `onramp_collections`: the partner's account each live on-ramp was given, written before
 * its initiation is recorded (a row whose on-ramp never started is never matched: matching joins the event log), with
 * the charge that paid it. `collection_payments`: each payment into a partner's account once, with what it was matched
 * to (an on-ramp, a refund at once, held for an operator), so that processing its event again acts on the same match.
 */
export class Migration20261204000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "ramp"."onramp_collections" (
      "transaction_id" text primary key,
      "organization_id" text not null,
      "provider" text not null,
      "account_number" text not null,
      "customer_code" text not null,
      "amount" numeric not null,
      "expires_at" timestamptz not null,
      "created_at" timestamptz not null default now(),
      "payment_reference" text
    );`);
    this.addSql(`create index if not exists "onramp_collections_account" on "ramp"."onramp_collections" ("provider", "account_number");`);
    // One payment per on-ramp, whatever the code does.
    this.addSql(`create unique index if not exists "onramp_collections_payment" on "ramp"."onramp_collections" ("provider", "payment_reference");`);
    this.addSql(`create table if not exists "ramp"."collection_payments" (
      "provider" text not null,
      "reference" text not null,
      "account_number" text not null,
      "amount" numeric not null,
      "paid_at" timestamptz not null,
      "matched" text not null check ("matched" in ('onramp', 'refund', 'hold')),
      "transaction_id" text,
      "reason" text,
      "refund" text check ("refund" in ('refunded', 'rejected')),
      "recorded_at" timestamptz not null default now(),
      primary key ("provider", "reference")
    );`);
  }
}
