import type { StoredEvent, Sql } from '@ramp/event-store';
import { RAMP_KINDS } from '@ramp/ramping';
import { ROUTE_KINDS } from '@ramp/routing';
import { projectEvent, type ProjectedTransaction, type TransactionView } from '@ramp/transactions';

/** Every kind of transaction the read model shows: on-ramps and off-ramps (ramp), swaps and transfers (swap-transfer). */
const TRANSACTION_KINDS = [...RAMP_KINDS, ...ROUTE_KINDS];

/** A stream's next event is not here yet: retry this one later (the consumer naks it with backoff). */
export class ProjectionGap extends Error {}

/**
 * Applies events to the transactions read model `table` in the caller's transaction, idempotent by stream version:
 * an event already applied is skipped, one whose predecessor is missing is refused (ProjectionGap) so that it is
 * retried later. The batch's rows are read (and locked) in one query, the events applied in memory in order, and the
 * changed rows written in one statement: the live consumer passes one event, the rebuild a thousand.
 */
export async function projectTransactionEvents(tx: Sql, events: StoredEvent[], table = 'ledger.transactions'): Promise<number> {
  const idOf = (event: StoredEvent) => event.streamId.slice(event.streamId.indexOf('-') + 1);
  const ids = [...new Set(events.map(idOf))];
  const { rows } = await tx.query<{ id: string; type: ProjectedTransaction['type']; stream_version: number; state: ProjectedTransaction['state'] }>(
    `select id, type, stream_version, state from ${table} where id = any($1) for update`,
    [ids],
  );
  const current = new Map<string, ProjectedTransaction>(rows.map((row) => [row.id, { type: row.type, version: row.stream_version, state: row.state }]));
  const changed = new Map<string, { projected: ProjectedTransaction; view: TransactionView; tenant: StoredEvent['metadata']['tenant'] }>();
  let applied = 0;
  for (const event of events) {
    const id = idOf(event);
    const outcome = projectEvent(TRANSACTION_KINDS, current.get(id), event);
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
