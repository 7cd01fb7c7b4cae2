import { Migration } from '@ramp/database';
import { eventStoreMigration } from '@ramp/event-store';
import { jobsTableMigration } from '@ramp/process-kit';

/**
 * The ramp service's event log (with its relay checkpoint, inbox and projection checkpoints), and its jobs: the
 * durable next steps of transactions, written in the same transaction as the events that call for them.
 */
export class Migration20261122200001 extends Migration {
  override async up(): Promise<void> {
    for (const statement of eventStoreMigration('ramp')) this.addSql(`${statement};`);
    for (const statement of jobsTableMigration('ramp')) this.addSql(`${statement};`);
  }
}
