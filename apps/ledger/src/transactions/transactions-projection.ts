import { generationOf } from '@ramp/contracts';
import type { Sql } from '@ramp/database';
import type { StoredEvent } from '@ramp/event-store';
import { projectEvent, type ProjectedTransaction } from '@ramp/transactions';

/** A stream's next event is not here yet: retry this one later (the consumer naks it with backoff). */
export class ProjectionGap extends Error {}

/**
 * Applies events to the transactions read model `table` in the caller's transaction: each event carries the
 * Transaction as it is after it (written by the service that appended it), which replaces the row's when it is the
 * stream's next version (see projectEvent). An event already applied is skipped, one whose predecessor is missing is
 * refused (ProjectionGap) so that it is retried later. The batch's rows are read (and locked) in one query, the events
 * applied in memory in order, and the changed rows written in one statement: the live consumer passes one event, the
 * rebuild a thousand. A row keeps the tenant and sandbox generation of its transaction's events.
 *
 * With `deferred` (the rebuild), an event whose predecessor is missing is put there instead, with every later event of
 * its stream in the batch, to be applied once the predecessor has come: a relay that republished after a fault may have
 * put a stream's events in the log out of order, and the rebuild reads the log once.
 *
 * A row that did not exist is not locked by the read: a second consumer (a redelivery to another replica) may insert it
 * and move it on before this one's insert lands. The upsert only ever moves a row forward (its version guard), so a
 * late write of an older version changes nothing.
 */
export async function projectTransactionEvents(tx: Sql, events: StoredEvent[], table = 'ledger.transactions', deferred?: StoredEvent[]): Promise<number> {
  const idOf = (event: StoredEvent) => event.streamId.slice(event.streamId.indexOf('-') + 1);
  const ids = [...new Set(events.map(idOf))];
  const { rows } = await tx.query<{ id: string; stream_version: number }>(`select id, stream_version from ${table} where id = any($1) for update`, [ids]);
  const versions = new Map<string, Pick<ProjectedTransaction, 'version'>>(rows.map((row) => [row.id, { version: row.stream_version }]));
  const changed = new Map<string, { projected: ProjectedTransaction; tenant: StoredEvent['metadata']['tenant'] }>();
  let applied = 0;
  const waiting = new Set<string>();
  for (const event of events) {
    const id = idOf(event);
    if (deferred && waiting.has(id)) {
      deferred.push(event);
      continue;
    }
    const outcome = projectEvent(versions.get(id), event);
    if (outcome.kind === 'gap' && deferred) {
      waiting.add(id);
      deferred.push(event);
      continue;
    }
    if (outcome.kind === 'gap') throw new ProjectionGap(`${event.streamId}: version ${event.streamVersion} arrived before ${outcome.expected}`);
    if (outcome.kind !== 'applied') continue;
    versions.set(id, outcome.projected);
    changed.set(id, { projected: outcome.projected, tenant: event.metadata.tenant });
    applied += 1;
  }
  if (changed.size === 0) return 0;
  const values: unknown[] = [];
  const tuples = [...changed.values()].map(({ projected: { version, view }, tenant }) => {
    const row = [
      view.id,
      tenant.organizationId,
      tenant.environment,
      generationOf(tenant),
      view.type,
      view.status,
      view.chain,
      view.walletId ?? null,
      view.createdAt,
      view.updatedAt,
      version,
      JSON.stringify(view),
    ];
    values.push(...row);
    const base = values.length - row.length;
    return `(${row.map((_, i) => `$${base + i + 1}`).join(', ')})`;
  });
  await tx.query(
    `insert into ${table} (id, organization_id, environment, generation, type, status, chain, wallet_id, created_at, updated_at, stream_version, view)
     values ${tuples.join(', ')}
     on conflict (id) do update set status = excluded.status, updated_at = excluded.updated_at, stream_version = excluded.stream_version, view = excluded.view
     where ${table}.stream_version < excluded.stream_version`,
    values,
  );
  return applied;
}
