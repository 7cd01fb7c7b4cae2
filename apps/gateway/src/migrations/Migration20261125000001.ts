import { Migration } from '@ramp/database';

/**
 * The sandbox generation of each organization's test environment (POST /sandbox/reset bumps it). Test keys carry it
 * in their tenant, and every service scopes test data by it: a reset empties the environment without touching the
 * append-only event logs.
 */
export class Migration20261125000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table gateway.organizations add column sandbox_generation integer not null default 0;`);
  }
}
