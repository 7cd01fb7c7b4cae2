import { evolveOfframp, initialOfframpState, type OfframpEvent, type OfframpState } from './offramp';
import { evolveOnramp, initialOnrampState, type OnrampEvent, type OnrampState } from './onramp';
import { offrampView, onrampView, type TransactionView } from './transaction-view';

/** What a read model keeps of a transaction to apply the next event: its folded state and the version it is at. */
export interface ProjectedTransaction {
  type: 'offramp' | 'onramp';
  version: number;
  state: OfframpState | OnrampState;
}

export interface RampEventEnvelope {
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
 * Applies one event of the ramp's log to a read model's copy of its transaction, pure. Events of a stream must come
 * in version order: an older version is a duplicate, a newer one than the next is a gap (so replicas that receive a
 * stream's events out of order wait instead of losing one).
 */
export function projectRampEvent(current: ProjectedTransaction | undefined, event: RampEventEnvelope): ProjectionOutcome {
  const type = event.type.startsWith('offramp.') ? 'offramp' : event.type.startsWith('onramp.') ? 'onramp' : undefined;
  if (!type) return { kind: 'ignored' };
  const version = current?.version ?? 0;
  if (event.streamVersion <= version) return { kind: 'duplicate' };
  if (event.streamVersion !== version + 1) return { kind: 'gap', expected: version + 1 };
  if (type === 'offramp') {
    const state = evolveOfframp((current?.state as OfframpState | undefined) ?? initialOfframpState, event as unknown as OfframpEvent);
    return { kind: 'applied', projected: { type, version: event.streamVersion, state }, view: offrampView(state) };
  }
  const state = evolveOnramp((current?.state as OnrampState | undefined) ?? initialOnrampState, event as unknown as OnrampEvent);
  return { kind: 'applied', projected: { type, version: event.streamVersion, state }, view: onrampView(state) };
}
