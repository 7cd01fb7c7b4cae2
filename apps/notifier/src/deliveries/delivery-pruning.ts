import type { PruneJob } from '@ramp/service-kit';

/**
 * Finished deliveries (succeeded, failed, cancelled) and their attempts, DELIVERY_RETENTION_DAYS after their last
 * change: both in one statement, the attempts first. A pending delivery is never pruned, however old.
 */
export const DELIVERY_PRUNING: PruneJob = {
  table: 'notifier.deliveries',
  retentionMs: (config) => config.int('deliveryRetentionDays', 1) * 24 * 60 * 60 * 1000,
  statement: `with doomed as (
      select id from notifier.deliveries where status <> 'pending' and updated_at < $1 order by updated_at limit $2 for update skip locked
    ), attempts as (
      delete from notifier.delivery_attempts where delivery_id in (select id from doomed)
    )
    delete from notifier.deliveries where id in (select id from doomed)`,
};
