import type { Tenant } from '@ramp/contracts';

/** What every transaction's state has once initiated: the tenant it belongs to, and whatever else its kind records. */
export interface InitiatedState {
  initiated?: { tenant: Tenant };
}

/**
 * A transaction's state from its initiation on: what a job, its owner, its view and every decision after the initiate
 * command see (a stream exists only from its initiation on).
 */
export type WithInitiation<State extends InitiatedState> = State & { initiated: NonNullable<State['initiated']> };

export function isInitiated<State extends InitiatedState>(state: State): state is WithInitiation<State> {
  return state.initiated !== undefined;
}
