import { Migration } from '@ramp/database';

/** Who settled a collection payment an operator had to look at (`npm run ops -- refund-collection`), and when. */
export class Migration20261204000002 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "ramp"."collection_payments"
      add column if not exists "resolved_by" text,
      add column if not exists "resolved_at" timestamptz;`);
  }
}
