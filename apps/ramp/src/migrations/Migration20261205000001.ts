import { Migration } from '@ramp/database';
import { jobsFinishedLegsMigration } from '@ramp/process-kit';

/**
 * A job woken by a leg's `send.finished` keeps what the event told of the leg (its hash, a swap's output) for its next
 * run, which answers the leg from it instead of asking the chain service again (Job.finishedLegs).
 */
export class Migration20261205000001 extends Migration {
  override async up(): Promise<void> {
    for (const statement of jobsFinishedLegsMigration('ramp')) this.addSql(`${statement};`);
  }
}
