import { Migration } from '@ramp/database';
import { jobsPendingMigration } from '@ramp/process-kit';

/**
 * A job released while its step waits for a send on chain is marked pending, so that the send's `send.finished` event
 * wakes it at once (JobQueue.wake) instead of a slot polling the chain service.
 */
export class Migration20261130000001 extends Migration {
  override async up(): Promise<void> {
    for (const statement of jobsPendingMigration('ramp')) this.addSql(`${statement};`);
  }
}
