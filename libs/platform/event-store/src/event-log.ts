import { randomUUID } from 'crypto';
import type { Pool } from 'pg';
import { LOG_START, toStoredEvent, type EventMetadata, type EventRow, type LogCheckpoint, type NewEvent, type StoredEvent } from './events';
import { schemaName, withTransaction, type Sql } from '@ramp/database';

/** Another writer appended to the stream since it was read: the command must be decided again on fresh state. */
export class StreamVersionConflict extends Error {
  constructor(
    readonly streamId: string,
    readonly expectedVersion: number,
  ) {
    super(`stream ${streamId} is no longer at version ${expectedVersion}`);
  }
}

const COLUMNS = 'global_position, event_id, stream_id, stream_version, type, data, metadata, transaction_id, created_at';

/**
 * A service's append-only event log in PostgreSQL (see eventStoreMigration), in plain SQL with bind parameters on the
 * caller's connection, so that an append commits or rolls back with the rest of the caller's transaction.
 */
export class EventLog {
  /** The LISTEN/NOTIFY channel an append signals (at its commit) to wake the relay and projections. */
  readonly channel: string;
  private readonly table: string;
  private lastNotifyAt = -Infinity;

  /**
   * @param notifyWindowMs appends of this process within this many milliseconds of one that notified do not notify
   *   again: NOTIFY takes a database-wide lock at commit and would halve the append rate under load. The relay looks
   *   again shortly after every wake-up, and polls as a fallback, so a skipped NOTIFY costs latency, never an event.
   */
  constructor(
    readonly schema: string,
    private readonly notifyWindowMs = 5,
  ) {
    this.table = `${schemaName(schema)}.events`;
    this.channel = `${schema}_events`;
  }

  /**
   * Appends events to a stream that must be at `expectedVersion` (0: the stream must not exist yet). The unique
   * (stream, version) key makes the check atomic: a concurrent append of the same version waits for the other
   * transaction and then fails with {@link StreamVersionConflict} (which aborts the caller's transaction).
   * `metadata` is one for every event, or one per event (in the order of `events`).
   */
  async append(
    tx: Sql,
    streamId: string,
    expectedVersion: number,
    events: readonly NewEvent[],
    metadata: EventMetadata | readonly EventMetadata[],
  ): Promise<StoredEvent[]> {
    if (events.length === 0) return [];
    const metadataOf = (i: number): EventMetadata => (isPerEvent(metadata) ? metadata[i]! : metadata);
    const values: unknown[] = [];
    const tuples = events.map((event, i) => {
      values.push(event.eventId ?? randomUUID(), streamId, expectedVersion + i + 1, event.type, JSON.stringify(event.data), JSON.stringify(metadataOf(i)));
      const p = i * 6;
      return `($${p + 1}, $${p + 2}, $${p + 3}, $${p + 4}, $${p + 5}, $${p + 6})`;
    });
    const now = performance.now();
    const notify = now - this.lastNotifyAt >= this.notifyWindowMs;
    if (notify) {
      this.lastNotifyAt = now;
      values.push(this.channel);
    }
    const insert = `insert into ${this.table} (event_id, stream_id, stream_version, type, data, metadata) values ${tuples.join(', ')} returning ${COLUMNS}`;
    let rows: EventRow[];
    try {
      // One statement: the insert and the wake-up of the relay (NOTIFY is sent at commit), so an append outside a
      // transaction is a single round trip and still atomic.
      ({ rows } = await tx.query<EventRow>(
        notify ? `with appended as (${insert}), notified as (select pg_notify($${values.length}, '')) select appended.* from appended, notified` : insert,
        values,
      ));
    } catch (error) {
      if (isUniqueViolation(error, 'stream_version')) throw new StreamVersionConflict(streamId, expectedVersion);
      throw error;
    }
    return rows.map(toStoredEvent).sort((a, b) => a.streamVersion - b.streamVersion);
  }

  async readStream(db: Sql, streamId: string): Promise<StoredEvent[]> {
    const { rows } = await db.query<EventRow>(`select ${COLUMNS} from ${this.table} where stream_id = $1 order by stream_version`, [streamId]);
    return rows.map(toStoredEvent);
  }

  /** The events of several streams in one round trip, each stream's in order (a stream with none is absent). */
  async readStreams(db: Sql, streamIds: readonly string[]): Promise<Map<string, StoredEvent[]>> {
    const streams = new Map<string, StoredEvent[]>();
    if (streamIds.length === 0) return streams;
    const { rows } = await db.query<EventRow>(`select ${COLUMNS} from ${this.table} where stream_id = any($1::text[]) order by stream_id, stream_version`, [
      [...new Set(streamIds)],
    ]);
    for (const event of rows.map(toStoredEvent)) {
      const stream = streams.get(event.streamId);
      if (stream) stream.push(event);
      else streams.set(event.streamId, [event]);
    }
    return streams;
  }

  /**
   * An SQL expression for the events of the stream `streamId` (an SQL expression of the caller's statement) as a JSON
   * array in stream order, for a statement that reads a stream beside its own work (the job claim): read its value
   * with {@link eventsOfJson}. Positions and transaction ids are strings, as in StoredEvent.
   */
  streamJson(streamId: string): string {
    return `(select coalesce(json_agg(json_build_object('global_position', e.global_position::text, 'event_id', e.event_id, 'stream_id', e.stream_id,
               'stream_version', e.stream_version, 'type', e.type, 'data', e.data, 'metadata', e.metadata, 'transaction_id', e.transaction_id::text,
               'created_at', e.created_at) order by e.stream_version), '[]'::json)
        from ${this.table} e where e.stream_id = ${streamId})`;
  }

  /** The events of a {@link streamJson} value. */
  static eventsOfJson(rows: readonly EventRow[]): StoredEvent[] {
    return rows.map(toStoredEvent);
  }

  /**
   * The next events of the whole log after `after`, in (transaction id, position) order, and only from transactions
   * older than every transaction still running. A transaction that commits late has a transaction id at least the
   * oldest running one, so it is read in its turn instead of being skipped (positions alone would skip it: they are
   * taken at insert time, not at commit). Call it outside a transaction that has written, or its own id holds it back.
   */
  async readAll(db: Sql, after: LogCheckpoint = LOG_START, limit = 500): Promise<StoredEvent[]> {
    return this.readAfter(db, '($1::xid8, $2::bigint)', [after.transactionId, after.globalPosition], limit);
  }

  /**
   * {@link readAll} after the relay's checkpoint as the table holds it now, read in the same statement: a relay's pass
   * is one round trip (and one commit), and a checkpoint moved by someone else (the reset of a lost stream) is seen.
   */
  async readUnpublished(db: Sql, limit = 500): Promise<StoredEvent[]> {
    // No checkpoint row (never so after the migration): from the start of the log, as readAll from LOG_START.
    const checkpoint = `${schemaName(this.schema)}.relay_checkpoint where id = 1`;
    const bound = `(coalesce((select transaction_id from ${checkpoint}), '0'::xid8), coalesce((select global_position from ${checkpoint}), 0))`;
    return this.readAfter(db, bound, [], limit);
  }

  private async readAfter(db: Sql, bound: string, values: unknown[], limit: number): Promise<StoredEvent[]> {
    const { rows } = await db.query<EventRow>(
      `select ${COLUMNS} from ${this.table}
        where (transaction_id, global_position) > ${bound}
          and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        order by transaction_id, global_position
        limit $${values.length + 1}`,
      [...values, limit],
    );
    return rows.map(toStoredEvent);
  }

  /**
   * What the relay has yet to publish: the events after its checkpoint (counted up to 100,000, so that a large backlog
   * costs a bounded index scan) and the age of the oldest of them in seconds (0 when there is none). Read on the
   * service's pool, never the relay's own connection, and given up after a second so that a slow database is not
   * loaded further by its monitoring.
   */
  async relayBacklog(pool: Pool): Promise<{ unpublished: number; oldestSeconds: number }> {
    return withTransaction(pool, async (tx) => {
      await tx.query(`set local statement_timeout = 1000`);
      const { rows: checkpoints } = await tx.query<{ transaction_id: string; global_position: string }>(
        `select transaction_id::text, global_position::text from ${schemaName(this.schema)}.relay_checkpoint where id = 1`,
      );
      const after = checkpoints[0] ?? { transaction_id: '0', global_position: '0' };
      const bound = [after.transaction_id, after.global_position];
      const after_ = `(transaction_id, global_position) > ($1::xid8, $2::bigint)`;
      const { rows: counted } = await tx.query<{ unpublished: number }>(
        `select count(*)::int as unpublished from (select 1 from ${this.table} where ${after_} limit 100000) backlog`,
        bound,
      );
      const { rows: oldest } = await tx.query<{ seconds: number }>(
        `select extract(epoch from now() - created_at)::float8 as seconds from ${this.table} where ${after_} order by transaction_id, global_position limit 1`,
        bound,
      );
      return { unpublished: counted[0]?.unpublished ?? 0, oldestSeconds: Math.max(0, oldest[0]?.seconds ?? 0) };
    });
  }

  /** The checkpoint just after an event. */
  static checkpointOf(event: StoredEvent): LogCheckpoint {
    return { transactionId: event.transactionId, globalPosition: event.globalPosition };
  }
}

function isPerEvent(metadata: EventMetadata | readonly EventMetadata[]): metadata is readonly EventMetadata[] {
  return Array.isArray(metadata);
}

export function isUniqueViolation(error: unknown, constraintPart?: string): boolean {
  const pgError = error as { code?: string; constraint?: string };
  return pgError?.code === '23505' && (constraintPart === undefined || (pgError.constraint ?? '').includes(constraintPart));
}
