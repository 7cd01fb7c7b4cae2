import { Migration } from '@ramp/database';

/** The sandbox generation a quote was made in: after POST /sandbox/reset the quotes of earlier generations are not found. */
export class Migration20261125000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table quote.quotes add column generation integer not null default 0;`);
  }
}
