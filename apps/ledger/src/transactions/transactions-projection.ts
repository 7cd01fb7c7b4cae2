import type { StoredEvent, Sql } from '@ramp/event-store';
import { projectRampEvent, type ProjectedTransaction, type TransactionView } from '@ramp/ramping';

/** A stream's next event is not here yet: retry this one later (the consumer naks it with backoff). */
export class ProjectionGap extends Error {}

/**
 * Applies one event to the transactions read model `table` in the caller's transaction: the row is locked, the event
 * applied if it is the stream's next one, skipped if it was applied already, refused (ProjectionGap) if one is
 * missing before it. Idempotent by stream version, so live delivery, redelivery and a full replay agree.
 */
export async function projectTransactionEvent(tx: Sql, event: StoredEvent, table = 'ledger.transactions'): Promise<'applied' | 'duplicate' | 'ignored'> {
  const transactionId = event.streamId.slice(event.streamId.indexOf('-') + 1);
  const { rows } = await tx.query<{ type: 'offramp' | 'onramp'; stream_version: number; state: ProjectedTransaction['state'] }>(
    `select type, stream_version, state from ${table} where id = $1 for update`,
    [transactionId],
  );
  const row = rows[0];
  const current: ProjectedTransaction | undefined = row ? { type: row.type, version: row.stream_version, state: row.state } : undefined;
  const outcome = projectRampEvent(current, event);
  if (outcome.kind === 'gap') throw new ProjectionGap(`${event.streamId}: version ${event.streamVersion} arrived before ${outcome.expected}`);
  if (outcome.kind !== 'applied') return outcome.kind;
  const { view, projected } = outcome;
  await tx.query(
    `insert into ${table} (id, organization_id, environment, type, status, chain, wallet_id, created_at, updated_at, stream_version, state, view)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     on conflict (id) do update set status = excluded.status, updated_at = excluded.updated_at, stream_version = excluded.stream_version,
       state = excluded.state, view = excluded.view`,
    [
      view.id,
      event.metadata.tenant.organizationId,
      event.metadata.tenant.environment,
      view.type,
      view.status,
      view.chain,
      view.walletId,
      view.createdAt,
      view.updatedAt,
      projected.version,
      JSON.stringify(projected.state),
      JSON.stringify(view),
    ],
  );
  return 'applied';
}

/**
 * {@link projectTransactionEvent} for a batch in one round trip each way: the batch's transactions are read in one
 * query, the events applied in memory in order, and the changed rows written in one statement. For replays (the
 * rebuild), where events come in stream order from one reader. A gap is an error here too.
 */
export async function projectTransactionEvents(tx: Sql, events: StoredEvent[], table = 'ledger.transactions'): Promise<number> {
  const idOf = (event: StoredEvent) => event.streamId.slice(event.streamId.indexOf('-') + 1);
  const ids = [...new Set(events.map(idOf))];
  const { rows } = await tx.query<{ id: string; type: 'offramp' | 'onramp'; stream_version: number; state: ProjectedTransaction['state'] }>(
    `select id, type, stream_version, state from ${table} where id = any($1) for update`,
    [ids],
  );
  const current = new Map<string, ProjectedTransaction>(rows.map((row) => [row.id, { type: row.type, version: row.stream_version, state: row.state }]));
  const changed = new Map<string, { projected: ProjectedTransaction; view: TransactionView; tenant: StoredEvent['metadata']['tenant'] }>();
  let applied = 0;
  for (const event of events) {
    const id = idOf(event);
    const outcome = projectRampEvent(current.get(id), event);
    if (outcome.kind === 'gap') throw new ProjectionGap(`${event.streamId}: version ${event.streamVersion} arrived before ${outcome.expected}`);
    if (outcome.kind !== 'applied') continue;
    current.set(id, outcome.projected);
    changed.set(id, { projected: outcome.projected, view: outcome.view, tenant: event.metadata.tenant });
    applied += 1;
  }
  if (changed.size === 0) return 0;
  const values: unknown[] = [];
  const tuples = [...changed.values()].map(({ projected, view, tenant }) => {
    values.push(view.id, tenant.organizationId, tenant.environment, view.type, view.status, view.chain, view.walletId, view.createdAt, view.updatedAt, projected.version, JSON.stringify(projected.state), JSON.stringify(view));
    const base = values.length - 12;
    return `(${Array.from({ length: 12 }, (_, i) => `$${base + i + 1}`).join(', ')})`;
  });
  await tx.query(
    `insert into ${table} (id, organization_id, environment, type, status, chain, wallet_id, created_at, updated_at, stream_version, state, view)
     values ${tuples.join(', ')}
     on conflict (id) do update set status = excluded.status, updated_at = excluded.updated_at, stream_version = excluded.stream_version,
       state = excluded.state, view = excluded.view`,
    values,
  );
  return applied;
}
