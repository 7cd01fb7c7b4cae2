import type { PruneJob } from '@ramp/service-kit';

/** Stored Idempotency-Key responses, an hour after they expire (IDEMPOTENCY_TTL_HOURS): a replay after expiry is a new request anyway. */
export const IDEMPOTENCY_PRUNING: PruneJob = {
  table: 'gateway.idempotency_keys',
  retentionMs: () => 60 * 60 * 1000,
  statement: `delete from gateway.idempotency_keys where ctid = any(array(
    select ctid from gateway.idempotency_keys where expires_at < $1 order by expires_at limit $2))`,
};
