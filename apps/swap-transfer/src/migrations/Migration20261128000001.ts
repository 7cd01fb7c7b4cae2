import { applicationAccess, Migration } from '@ramp/database';

/**
 * Least privilege: the role the services run as (ramp_app, granted to their login role) reads and writes the
 * swap_transfer schema's tables, only reads and appends to its event log, only reads the migrations' record, and
 * creates, alters or drops nothing: the migration Job's role owns the schema (deploy/README.md, "PostgreSQL").
 */
export class Migration20261128000001 extends Migration {
  override async up(): Promise<void> {
    for (const statement of applicationAccess('swap_transfer', ['events'])) this.addSql(`${statement};`);
  }
}
