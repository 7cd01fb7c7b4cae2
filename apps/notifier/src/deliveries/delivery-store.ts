import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';
import { withTransaction } from '@ramp/database';
import { INTEGRATION_EVENT_NAMES, newId, type Environment } from '@ramp/contracts';
import type { ConsumedEvent } from '@ramp/messaging';
import { MAX_ATTEMPTS, MAX_WEBHOOKS_PER_TENANT, type AttemptOutcome } from '@ramp/webhooks';

/** A tenant's webhooks and a callback. */
const MAX_TARGETS = MAX_WEBHOOKS_PER_TENANT + 1;

/** Attempt records written in one statement at most. */
const FINISH_BATCH = 200;

/** The NOTIFY channel that wakes every replica's delivery worker when deliveries are written. */
export const DELIVERIES_CHANNEL = 'notifier_deliveries';

/** An integration event as the notifier's consumer reads it: the exact bytes to send, and where they go. */
/** An integration event as the consumer read it; `metadata` and `createdAt` (ConsumedEvent) come from its headers and timestamp. */
export interface IncomingEvent extends ConsumedEvent {
  /** The domain event's id (the message id on the stream): one delivery per target per event id. */
  eventId: string;
  /** The event name, e.g. `offramp.completed`. */
  type: string;
  /** The payload as published: these bytes are signed and sent, never serialized again. */
  body: string;
  transactionId: string | null;
  organizationId: string;
  environment: Environment;
  /** The sandbox generation the transaction started in: only that generation's webhooks receive the event. */
  generation: number;
  /** The key that initiated the transaction; its API secret signs the callback. */
  keyId: string | null;
  callbackUrl: string | null;
}

/**
 * The `events` entries that subscribe a webhook to an event: its name, and `*` for the spec's eight only. An event name
 * added within /v1 (a wallet's) reaches only the webhooks that list it by name (docs/versioning.md, "Event names").
 */
export function subscribedBy(event: string): string[] {
  return (INTEGRATION_EVENT_NAMES as readonly string[]).includes(event) ? ['*', event] : [event];
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
   * event (by name, or by `*` for the spec's eight: subscribedBy), and one for the callback URL, all due now. A redelivered event adds nothing (unique per event and
   * target). NOTIFY wakes the workers once the transaction commits.
   */
  async recordEvent(tx: PoolClient, incoming: IncomingEvent, now: Date): Promise<number> {
    // One statement: the subscribed webhooks, the callback, the inserts and the NOTIFY. Ids are made here (time-sortable
    // ULIDs): one for each possible webhook, and the last for the callback.
    const ids = Array.from({ length: MAX_TARGETS }, () => newId('dlv', now.getTime()));
    const callback = incoming.callbackUrl && incoming.keyId ? { url: incoming.callbackUrl, keyId: incoming.keyId } : null;
    const result = await tx.query<{ n: number }>(
      `with active as (
         -- FOR SHARE: a DELETE of one of these waits for this transaction, then cancels the deliveries it wrote.
         select id, url from notifier.webhooks
          where organization_id = $1 and environment = $2 and generation = $13 and deleted_at is null and is_active and events && $14::text[]
          for share
       ),
       subscribed as (select id, url, row_number() over (order by id) as n from active),
       targets as (
         select ($4::text[])[n] as id, id as webhook_id, url as target_url, null::text as key_id from subscribed
         union all
         select ($4::text[])[${MAX_TARGETS}], null, $5::text, $6::text where $5::text is not null
       ),
       inserted as (
         insert into notifier.deliveries
           (id, webhook_id, target_url, key_id, organization_id, environment, event_id, event, transaction_id, body, status, attempts, max_attempts, next_attempt_at, created_at, updated_at)
         select t.id, t.webhook_id, t.target_url, t.key_id, $1, $2, $7, $3, $8, $9, 'pending', 0, $10, $11, $11, $11 from targets t
         on conflict do nothing
         returning 1
       )
       select count(*)::int as n, case when count(*) > 0 then pg_notify($12, '') end as notified from inserted`,
      [
        incoming.organizationId,
        incoming.environment,
        incoming.type,
        ids,
        callback?.url ?? null,
        callback?.keyId ?? null,
        incoming.eventId,
        incoming.transactionId,
        incoming.body,
        MAX_ATTEMPTS,
        now,
        DELIVERIES_CHANNEL,
        incoming.generation,
        subscribedBy(incoming.type),
      ],
    );
    return result.rows[0]?.n ?? 0;
  }

  /**
   * Leases up to `limit` deliveries due at `now` (pending, next attempt reached, no live lease) until `leaseUntil`,
   * oldest first, skipping rows another replica is claiming. A worker that dies mid-send loses its lease when it
   * expires, and the delivery is sent again: at least once. None of `skipTenants` (`organization:environment`: the
   * tenants at their cap on this worker), and at most `perTenant` of one tenant: then the oldest four batches' worth are
   * looked at, so that one tenant's backlog at the front of the queue leaves room for the others'.
   */
  async claim(now: Date, leaseUntil: Date, limit: number, skipTenants: readonly string[] = [], perTenant = limit): Promise<ClaimedDelivery[]> {
    const due = `status = 'pending' and next_attempt_at <= $1 and (lease_until is null or lease_until <= $1)
            and organization_id || ':' || environment <> all($4::text[])`;
    // The cap binds within one claim only when it is below the claim's size; otherwise the plain oldest-first claim.
    const pick =
      perTenant >= limit
        ? `select id from notifier.deliveries where ${due} order by next_attempt_at limit $3 for update skip locked`
        : `select id from (
             select id, next_attempt_at, row_number() over (partition by organization_id, environment order by next_attempt_at) as turn
               from (select id, organization_id, environment, next_attempt_at from notifier.deliveries where ${due}
                      order by next_attempt_at limit $3 * 4 for update skip locked) candidates
           ) ranked
          where turn <= $5
          order by next_attempt_at
          limit $3`;
    const result = await this.unsynced<ClaimRow>(
      `with due as (${pick})
       update notifier.deliveries d
          set lease_until = $2, lease_token = gen_random_uuid(), updated_at = $1
         from due
        where d.id = due.id
       returning d.id, d.organization_id, d.environment, d.webhook_id, d.key_id, d.target_url, d.event_id, d.event, d.body,
                 d.attempts, d.max_attempts, d.lease_token,
                 (select w.secret_sealed from notifier.webhooks w where w.id = d.webhook_id) as secret_sealed`,
      perTenant >= limit ? [now, leaseUntil, limit, skipTenants] : [now, leaseUntil, limit, skipTenants, perTenant],
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
   * A delivery cancelled meanwhile (its webhook was deleted) stays cancelled. Attempts finishing together are written
   * in one statement; the promise settles when theirs is written.
   */
  finish(delivery: ClaimedDelivery, attempt: AttemptRecord, outcome: AttemptOutcome, now: Date): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.finished.push({ delivery, attempt, outcome, now, resolve, reject });
      if (this.finished.length >= FINISH_BATCH) void this.flush();
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private readonly finished: {
    delivery: ClaimedDelivery;
    attempt: AttemptRecord;
    outcome: AttemptOutcome;
    now: Date;
    resolve: () => void;
    reject: (error: unknown) => void;
  }[] = [];
  private flushScheduled = false;

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    const batch = this.finished.splice(0, FINISH_BATCH);
    if (batch.length === 0) return;
    if (this.finished.length > 0 && !this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => void this.flush());
    }
    const values: unknown[] = [];
    const rows = batch.map(({ delivery, attempt, outcome, now }, index) => {
      const p = index * 10;
      values.push(
        delivery.id,
        attempt.attempt,
        attempt.startedAt,
        attempt.durationMs,
        attempt.statusCode,
        attempt.error?.slice(0, 500) ?? null,
        outcome.status,
        outcome.status === 'pending' ? outcome.nextAttemptAt : null,
        now,
        delivery.leaseToken,
      );
      return `($${p + 1}::text, $${p + 2}::int, $${p + 3}::timestamptz, $${p + 4}::int, $${p + 5}::int, $${p + 6}::text, $${p + 7}::text, $${p + 8}::timestamptz, $${p + 9}::timestamptz, $${p + 10}::uuid)`;
    });
    try {
      await this.unsynced(
        `with r (id, attempt, started_at, duration_ms, status_code, error, status, next_attempt_at, now, lease_token) as (values ${rows.join(', ')}),
         attempts as (
           insert into notifier.delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error)
           select id, attempt, started_at, duration_ms, status_code, error from r
           on conflict do nothing
         )
         update notifier.deliveries d
            set attempts = greatest(d.attempts, r.attempt),
                status = case when d.status = 'cancelled' then d.status else r.status end,
                next_attempt_at = case when d.status = 'cancelled' then null else r.next_attempt_at end,
                lease_until = null, lease_token = null, updated_at = r.now
           from r
          where d.id = r.id and d.lease_token = r.lease_token`,
        values,
      );
      for (const entry of batch) entry.resolve();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }

  /** Gives a delivery back without an attempt (its signing secret could not be fetched): tried again at `at`. */
  async postpone(delivery: ClaimedDelivery, at: Date): Promise<void> {
    await this.unsynced(
      `update notifier.deliveries set next_attempt_at = $2, lease_until = null, lease_token = null, updated_at = $2
        where id = $1 and lease_token = $3 and status = 'pending'`,
      [delivery.id, at, delivery.leaseToken],
    );
  }

  /**
   * A statement of the workers, committed without waiting for the disk: a claim or an attempt's record lost in a
   * PostgreSQL crash only means the delivery is sent again (at least once), never that it is lost. Deliveries are
   * created in the consumer's transactions (recordEvent), which wait as usual.
   */
  private unsynced<R extends QueryResultRow>(text: string, values: unknown[]): Promise<QueryResult<R>> {
    return withTransaction(this.pool, (tx) => tx.query<R>(text, values), { synchronousCommit: false });
  }
}
