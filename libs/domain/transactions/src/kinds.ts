import type { TransactionView } from './transaction-view';

/**
 * One kind of transaction as the service that runs it knows it: how its events fold into state and how that state is
 * shown. Only that service uses it (another service's read model applies the views its events carry: projection.ts).
 */
export interface TransactionKind<State = unknown, Event = never> {
  type: TransactionView['type'];
  initialState: State;
  evolve(state: State, event: Event): State;
  view(state: State): TransactionView;
}

/** Any kind of transaction, whatever its state and events (a service's log holds several). */
export type AnyTransactionKind = TransactionKind<unknown, { type: string; data: unknown }>;

/** An event of a transaction's stream, as far as folding it goes. */
export interface KindEvent {
  streamVersion: number;
  type: string;
  data: unknown;
}

/**
 * The transaction as it was right after its event `version`, folded from its stream's events (in version order) with
 * the kind its events' type prefix (`swap.`, `offramp.`, ...) names; undefined when no event of a kind was found.
 */
export function viewAtVersion(kinds: readonly AnyTransactionKind[], events: readonly KindEvent[], version: number): TransactionView | undefined {
  const kind = kinds.find((candidate) => events[0]?.type.startsWith(`${candidate.type}.`));
  if (!kind) return undefined;
  let state = kind.initialState;
  let folded = false;
  for (const event of events) {
    if (event.streamVersion > version) break;
    if (!event.type.startsWith(`${kind.type}.`)) continue;
    state = kind.evolve(state, event);
    folded = true;
  }
  return folded ? kind.view(state) : undefined;
}
