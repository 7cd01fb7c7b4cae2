import { Migration } from '@ramp/database';

/** Finished deliveries by their last change: what pruning reads (DELIVERY_PRUNING), a batch at a time. */
export class Migration20261126200001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index deliveries_finished on notifier.deliveries (updated_at) where status <> 'pending';`);
  }
}
