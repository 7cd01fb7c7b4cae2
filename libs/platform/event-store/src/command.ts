import type { Pool, PoolClient } from 'pg';
import { AppError } from '@ramp/contracts';
import { fold, type Decider } from './decider';
import { EventLog, StreamVersionConflict } from './event-log';
import type { EventMetadata, NewEvent, StoredEvent } from './events';
import { withTransaction } from '@ramp/database';

export interface CommandOptions<State, Command, Event extends NewEvent> {
  streamId: string;
  decider: Decider<State, Command, Event>;
  command: Command;
  metadata: EventMetadata;
  /** Work that must commit with the events (read-model rows, outgoing requests recorded in the same transaction). */
  alsoInTransaction?: (tx: PoolClient, appended: StoredEvent[], state: State) => Promise<void>;
  /** When given, each appended event's metadata carries `view`: this of the stream's state right after that event. */
  viewOf?: (state: State) => unknown;
  maxAttempts?: number;
  /**
   * The stream as the caller already read it (outside the transaction): the first attempt decides on it and appends at
   * its version without reading it again. Stale, it costs only a retry: the append at its version is refused, and the
   * next attempt reads the stream in the transaction.
   */
  history?: readonly StoredEvent[];
}

export interface CommandResult<State> {
  state: State;
  appended: StoredEvent[];
  version: number;
}

/** The state right after each of `events`, applied in order from `state`. */
function afterEach<State, Event extends NewEvent>(decider: Pick<Decider<State, never, Event>, 'evolve'>, state: State, events: readonly Event[]): State[] {
  const states: State[] = [];
  let current = state;
  for (const event of events) {
    current = decider.evolve(current, event);
    states.push(current);
  }
  return states;
}

/**
 * Loads a stream, decides the command on its state and appends the result at the version it read, in one
 * transaction. When another writer got there first the command is decided again on the new state, up to
 * `maxAttempts` times (default 5), and then answered CONFLICT. A refusal thrown by `decide` is passed on untouched.
 */
export async function handleCommand<State, Command, Event extends NewEvent>(
  pool: Pool,
  log: EventLog,
  options: CommandOptions<State, Command, Event>,
): Promise<CommandResult<State>> {
  const attempts = options.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await withTransaction(pool, async (tx) => {
        const supplied = attempt === 1 ? options.history : undefined;
        const history = supplied ?? (await log.readStream(tx, options.streamId));
        const state = fold(options.decider, history as unknown as Event[]);
        let events: Event[];
        try {
          events = options.decider.decide(options.command, state);
        } catch (refusal) {
          // A refusal on the caller's reading may not hold on the stream as it is now: decided again on a fresh read.
          if (supplied) throw new StreamVersionConflict(options.streamId, history.length);
          throw refusal;
        }
        // Nothing to append checks no version: a no-op on the caller's reading is decided again on a fresh read.
        if (supplied && events.length === 0) throw new StreamVersionConflict(options.streamId, history.length);
        const states = afterEach(options.decider, state, events);
        const { viewOf } = options;
        const metadata = viewOf ? states.map((after) => ({ ...options.metadata, view: viewOf(after) })) : options.metadata;
        const appended = await log.append(tx, options.streamId, history.length, events, metadata);
        const next = states.length > 0 ? states[states.length - 1]! : state;
        await options.alsoInTransaction?.(tx, appended, next);
        return { state: next, appended, version: history.length + appended.length };
      });
    } catch (error) {
      if (!(error instanceof StreamVersionConflict)) throw error;
      if (attempt >= attempts) {
        throw new AppError('TRANSACTION_STATE_CONFLICT', `The transaction was changed by ${attempts} concurrent requests in a row; retry`);
      }
    }
  }
}
