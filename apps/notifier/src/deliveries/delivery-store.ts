import type { Pool, PoolClient } from 'pg';
import { newId, type Environment } from '@ramp/contracts';
import { MAX_ATTEMPTS, type AttemptOutcome } from '@ramp/webhooks';

/** The NOTIFY channel that wakes every replica's delivery worker when deliveries are written. */
export const DELIVERIES_CHANNEL = 'notifier_deliveries';

/** An integration event as the notifier's consumer reads it: the exact bytes to send, and where they go. */
export interface IncomingEvent {
  /** The domain event's id (the message id on the stream): one delivery per target per event id. */
  eventId: string;
  /** The event name, e.g. `offramp.completed`. */
  type: string;
  /** The payload as published: these bytes are signed and sent, never serialized again. */
  body: string;
  transactionId: string | null;
  organizationId: string;
  environment: Environment;
  /** The key that initiated the transaction; its API secret signs the callback. */
  keyId: string | null;
  callbackUrl: string | null;
}

/** A delivery leased to one worker for one attempt. */
export interface ClaimedDelivery {
  id: string;
  organizationId: string;
  environment: Environment;
  /** null: a per-transaction callback, signed with `keyId`'s API secret. */
  webhookId: string | null;
  keyId: string | null;
  targetUrl: string;
  eventId: string;
  event: string;
  body: string;
  /** Attempts already made. */
  attempts: number;
  maxAttempts: number;
  leaseToken: string;
  /** The webhook's sealed secret (webhooks only). */
  secretSealed: string | null;
}

export interface AttemptRecord {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

interface ClaimRow {
  id: string;
  organization_id: string;
  environment: Environment;
  webhook_id: string | null;
  key_id: string | null;
  target_url: string;
  event_id: string;
  event: string;
  body: string;
  attempts: number;
  max_attempts: number;
  lease_token: string;
  secret_sealed: string | null;
}

/** The deliveries table and its attempts: written by the consumer, leased and settled by the workers. */
export class DeliveryStore {
  constructor(private readonly pool: Pool) {}

  /**
   * Inside the consumer's transaction: one pending delivery for every active webhook of the tenant subscribed to the
   * event (or `*`), and one for the callback URL, all due now. A redelivered event adds nothing (unique per event and
   * target). NOTIFY wakes the workers once the transaction commits.
   */
  async recordEvent(tx: PoolClient, incoming: IncomingEvent, now: Date): Promise<number> {
    const webhooks = await tx.query<{ id: string; url: string }>(
      `select id, url from notifier.webhooks
        where organization_id = $1 and environment = $2 and deleted_at is null and is_active and events && array['*', $3]::text[]
        order by id`,
      [incoming.organizationId, incoming.environment, incoming.type],
    );
    const targets: { webhookId: string | null; url: string; keyId: string | null }[] = webhooks.rows.map((row) => ({ webhookId: row.id, url: row.url, keyId: null }));
    if (incoming.callbackUrl && incoming.keyId) targets.push({ webhookId: null, url: incoming.callbackUrl, keyId: incoming.keyId });
    if (targets.length === 0) return 0;
    // Per-row parameters first ($1..$4n), then the ones every row shares.
    const values: unknown[] = targets.flatMap((target) => [newId('dlv', now.getTime()), target.webhookId, target.url, target.keyId]);
    const rows = targets.map((_, index) => `($${index * 4 + 1}, $${index * 4 + 2}, $${index * 4 + 3}, $${index * 4 + 4})`);
    const s = (n: number): string => `$${values.length + n}`;
    const inserted = await tx.query(
      `insert into notifier.deliveries
         (id, webhook_id, target_url, key_id, organization_id, environment, event_id, event, transaction_id, body, status, attempts, max_attempts, next_attempt_at, created_at, updated_at)
       select t.id, t.webhook_id, t.target_url, t.key_id, ${s(1)}, ${s(2)}, ${s(3)}, ${s(4)}, ${s(5)}, ${s(6)}, 'pending', 0, ${s(7)}::int, ${s(8)}::timestamptz, ${s(8)}::timestamptz, ${s(8)}::timestamptz
         from (values ${rows.join(', ')}) as t (id, webhook_id, target_url, key_id)
       on conflict do nothing`,
      [...values, incoming.organizationId, incoming.environment, incoming.eventId, incoming.type, incoming.transactionId, incoming.body, MAX_ATTEMPTS, now],
    );
    if ((inserted.rowCount ?? 0) > 0) await tx.query(`select pg_notify($1, '')`, [DELIVERIES_CHANNEL]);
    return inserted.rowCount ?? 0;
  }

  /**
   * Leases up to `limit` deliveries due at `now` (pending, next attempt reached, no live lease) until `leaseUntil`,
   * skipping rows another replica is claiming. A worker that dies mid-send loses its lease when it expires, and the
   * delivery is sent again: at least once.
   */
  async claim(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedDelivery[]> {
    const result = await this.pool.query<ClaimRow>(
      `with due as (
         select id from notifier.deliveries
          where status = 'pending' and next_attempt_at <= $1 and (lease_until is null or lease_until <= $1)
          order by next_attempt_at
          limit $3
          for update skip locked
       )
       update notifier.deliveries d
          set lease_until = $2, lease_token = gen_random_uuid(), updated_at = $1
         from due
        where d.id = due.id
       returning d.id, d.organization_id, d.environment, d.webhook_id, d.key_id, d.target_url, d.event_id, d.event, d.body,
                 d.attempts, d.max_attempts, d.lease_token,
                 (select w.secret_sealed from notifier.webhooks w where w.id = d.webhook_id) as secret_sealed`,
      [now, leaseUntil, limit],
    );
    return result.rows.map((row) => ({
      id: row.id,
      organizationId: row.organization_id,
      environment: row.environment,
      webhookId: row.webhook_id,
      keyId: row.key_id,
      targetUrl: row.target_url,
      eventId: row.event_id,
      event: row.event,
      body: row.body,
      attempts: row.attempts,
      maxAttempts: row.max_attempts,
      leaseToken: row.lease_token,
      secretSealed: row.secret_sealed,
    }));
  }

  /**
   * Records an attempt and what follows it (succeeded, the next retry, or failed), if the lease is still this worker's.
   * A delivery cancelled meanwhile (its webhook was deleted) stays cancelled.
   */
  async finish(delivery: ClaimedDelivery, attempt: AttemptRecord, outcome: AttemptOutcome, now: Date): Promise<void> {
    const nextAttemptAt = outcome.status === 'pending' ? outcome.nextAttemptAt : null;
    await this.pool.query(
      `with attempt as (
         insert into notifier.delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error)
         values ($1, $2, $3, $4, $5, $6)
         on conflict do nothing
       )
       update notifier.deliveries
          set attempts = greatest(attempts, $2),
              status = case when status = 'cancelled' then status else $7 end,
              next_attempt_at = case when status = 'cancelled' then null else $8::timestamptz end,
              lease_until = null, lease_token = null, updated_at = $9
        where id = $1 and lease_token = $10`,
      [delivery.id, attempt.attempt, attempt.startedAt, attempt.durationMs, attempt.statusCode, attempt.error?.slice(0, 500) ?? null, outcome.status, nextAttemptAt, now, delivery.leaseToken],
    );
  }

  /** Gives a delivery back without an attempt (its signing secret could not be fetched): tried again at `at`. */
  async postpone(delivery: ClaimedDelivery, at: Date): Promise<void> {
    await this.pool.query(
      `update notifier.deliveries set next_attempt_at = $2, lease_until = null, lease_token = null, updated_at = $2
        where id = $1 and lease_token = $3 and status = 'pending'`,
      [delivery.id, at, delivery.leaseToken],
    );
  }
}
