import type { TransactionView } from './transaction-view';

/** One kind of transaction a read model shows: how its events fold into state and how that state is shown. */
export interface TransactionKind<State = unknown, Event = never> {
  type: TransactionView['type'];
  initialState: State;
  evolve(state: State, event: Event): State;
  view(state: State): TransactionView;
}

/** Any kind of transaction, whatever its state and events (the read model and publishers hold several). */
export type AnyTransactionKind = TransactionKind<unknown, { type: string; data: unknown }>;

/** What a read model keeps of a transaction to apply the next event: its folded state and the version it is at. */
export interface ProjectedTransaction {
  type: TransactionView['type'];
  version: number;
  state: unknown;
}

export interface StreamEventEnvelope {
  streamId: string;
  streamVersion: number;
  type: string;
  data: unknown;
}

export type ProjectionOutcome =
  | { kind: 'applied'; projected: ProjectedTransaction; view: TransactionView }
  /** Already applied (a redelivery or a replay): nothing to do. */
  | { kind: 'duplicate' }
  /** An earlier event of the stream has not been applied yet: try this one again later. */
  | { kind: 'gap'; expected: number }
  /** Not a transaction event this read model shows. */
  | { kind: 'ignored' };

/**
 * Applies one event to a read model's copy of its transaction, pure. The event's type prefix (`swap.`, `offramp.`,
 * ...) names its kind. Events of a stream must come in version order: an older version is a duplicate, a newer one
 * than the next is a gap (so replicas that receive a stream's events out of order wait instead of losing one).
 */
export function projectEvent(kinds: readonly AnyTransactionKind[], current: ProjectedTransaction | undefined, event: StreamEventEnvelope): ProjectionOutcome {
  const kind = kinds.find((candidate) => event.type.startsWith(`${candidate.type}.`));
  if (!kind) return { kind: 'ignored' };
  const version = current?.version ?? 0;
  if (event.streamVersion <= version) return { kind: 'duplicate' };
  if (event.streamVersion !== version + 1) return { kind: 'gap', expected: version + 1 };
  const state = kind.evolve(current?.state ?? kind.initialState, event);
  return { kind: 'applied', projected: { type: kind.type, version: event.streamVersion, state }, view: kind.view(state) };
}

/** The transaction as it was right after its event `version`, from its stream's events. */
export function viewAtVersion(kinds: readonly AnyTransactionKind[], events: readonly StreamEventEnvelope[], version: number): TransactionView | undefined {
  let projected: ProjectedTransaction | undefined;
  let view: TransactionView | undefined;
  for (const event of events) {
    if (event.streamVersion > version) break;
    const outcome = projectEvent(kinds, projected, event);
    if (outcome.kind === 'applied') {
      projected = outcome.projected;
      view = outcome.view;
    }
  }
  return view;
}
