import { Migration } from '@ramp/database';
import { eventStoreMigration } from '@ramp/event-store';
import { jobsTableMigration } from '@ramp/process-kit';

/** The swap-transfer service's event log (with its relay checkpoint, inbox and projection checkpoints), and its jobs. */
export class Migration20261123000001 extends Migration {
  override async up(): Promise<void> {
    for (const statement of eventStoreMigration('swap_transfer')) this.addSql(`${statement};`);
    for (const statement of jobsTableMigration('swap_transfer')) this.addSql(`${statement};`);
  }
}
