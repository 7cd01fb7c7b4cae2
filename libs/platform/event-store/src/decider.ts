import type { NewEvent } from './events';

/**
 * The pure core of an event-sourced aggregate: `evolve` folds events into state, `decide` turns a command on a state
 * into new events (or throws a typed refusal). No I/O, so both are tested in given / when / then form.
 */
export interface Decider<State, Command, Event extends NewEvent> {
  initialState: State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event[];
}

/** The state after a history of events. */
export function fold<State, Event extends NewEvent>(decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>, events: readonly Event[]): State {
  return events.reduce((state, event) => decider.evolve(state, event), decider.initialState);
}
