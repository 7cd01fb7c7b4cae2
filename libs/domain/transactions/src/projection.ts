import type { TransactionView } from './transaction-view';

/**
 * The transactions read model of another service (the ledger's), pure: each event of a transaction carries the
 * Transaction as it is right after it (written by the service that appended it, in the event's metadata), and the read
 * model applies those views in stream-version order. It needs none of the rules that produced them.
 */

/** What a read model keeps of a transaction to apply the next event: the view and the version it is at. */
export interface ProjectedTransaction {
  version: number;
  view: TransactionView;
}

/** An event as a read model receives it (a StoredEvent, from the service's JetStream stream). */
export interface StreamEventEnvelope {
  streamId: string;
  streamVersion: number;
  type: string;
  metadata?: { view?: unknown };
}

export type ProjectionOutcome =
  | { kind: 'applied'; projected: ProjectedTransaction }
  /** Already applied (a redelivery or a replay): nothing to do. */
  | { kind: 'duplicate' }
  /** An earlier event of the stream has not been applied yet: try this one again later. */
  | { kind: 'gap'; expected: number }
  /** Not a transaction's event: it carries no Transaction view. */
  | { kind: 'ignored' };

const TYPES: readonly string[] = ['onramp', 'offramp', 'swap', 'transfer'] satisfies TransactionView['type'][];
const STATUSES: readonly string[] = ['pending', 'completed', 'failed'] satisfies TransactionView['status'][];

/** The Transaction view an event carries in its metadata, if it carries one. */
export function carriedView(event: StreamEventEnvelope): TransactionView | undefined {
  const view = event.metadata?.view as Partial<TransactionView> | undefined;
  const looksLikeOne =
    typeof view === 'object' && view !== null && typeof view.id === 'string' && TYPES.includes(view.type as string) && STATUSES.includes(view.status as string);
  return looksLikeOne ? (view as TransactionView) : undefined;
}

/**
 * Applies one event to a read model's copy of its transaction: the view it carries replaces the copy's when it is
 * the stream's next version. An older version is a duplicate, a newer one than the next is a gap (so replicas that
 * receive a stream's events out of order wait instead of losing one).
 */
export function projectEvent(current: Pick<ProjectedTransaction, 'version'> | undefined, event: StreamEventEnvelope): ProjectionOutcome {
  const view = carriedView(event);
  if (!view) return { kind: 'ignored' };
  const version = current?.version ?? 0;
  if (event.streamVersion <= version) return { kind: 'duplicate' };
  if (event.streamVersion !== version + 1) return { kind: 'gap', expected: version + 1 };
  return { kind: 'applied', projected: { version: event.streamVersion, view } };
}
