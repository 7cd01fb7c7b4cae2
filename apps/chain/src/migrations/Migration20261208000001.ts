import { Migration } from '@ramp/database';

/**
 * What the books hold of a managed wallet's operation that a reorganisation reopened (`booked_status`: its
 * `send.finished` said confirmed or failed). One booked as failed, its reverted landing taken out, is cancelled rather
 * than landed again: a fresh operation with its nonce and no calls, so that its signed copy (public once it was on
 * chain) can never land and move what the books say never moved.
 */
export class Migration20261208000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table chain.account_operations add column if not exists booked_status text constraint account_operations_booked_status check (booked_status in ('confirmed', 'failed'));`,
    );
    // Reopened before this column: only operations booked as confirmed were.
    this.addSql(`update chain.account_operations set booked_status = 'confirmed' where reorged_at is not null and booked_status is null;`);
  }
}
