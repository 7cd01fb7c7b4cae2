import { randomUUID } from 'crypto';
import { Pool } from 'pg';
import { AppError } from '@ramp/contracts';
import { EventLog, eventStoreMigration, handleCommand, type Decider, type EventMetadata, type StoredEvent } from './index';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ramp_platform_test';

const metadata: EventMetadata = {
  correlationId: 'corr',
  causationId: 'cause',
  actor: 'test',
  tenant: { organizationId: 'org_test', environment: 'test', keyId: 'key_test' },
};

type CounterEvent = { type: 'incremented'; data: { by: number } };
const counter: Decider<number, { by: number; max?: number; times?: number }, CounterEvent> = {
  initialState: 0,
  evolve: (state, event) => state + event.data.by,
  decide: (command, state) => {
    if (command.max !== undefined && state + command.by > command.max) throw new AppError('INVALID_FIELD', `by: would pass ${command.max}`, 'by');
    return Array.from({ length: command.times ?? 1 }, () => ({ type: 'incremented' as const, data: { by: command.by } }));
  },
};

describe("event store - commands decided on a stream's state and appended at the version they read", () => {
  const schema = `cmd_test_${Date.now().toString(36)}`;
  const log = new EventLog(schema);
  let pool: Pool;

  beforeAll(async () => {
    pool = new Pool({ connectionString: DATABASE_URL, max: 30 });
    for (const statement of eventStoreMigration(schema)) await pool.query(statement);
  });

  afterAll(async () => {
    await pool.query(`drop schema ${schema} cascade`);
    await pool.end();
  });

  it('decides 20 concurrent commands on fresh state each time, retrying conflicts, so none is lost', async () => {
    const streamId = `counter-${randomUUID()}`;
    await Promise.all(
      Array.from({ length: 20 }, () => handleCommand(pool, log, { streamId, decider: counter, command: { by: 1 }, metadata, maxAttempts: 50 })),
    );
    const events = await log.readStream(pool, streamId);
    expect(events.map((event) => event.streamVersion)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('answers CONFLICT after the bounded number of attempts, and passes refusals on untouched', async () => {
    const streamId = `counter-${randomUUID()}`;
    let reads = 0;
    /** A log with a rival writer that commits to the stream between every read and the append that follows it. */
    class RacingLog extends EventLog {
      override async readStream(db: Parameters<EventLog['readStream']>[0], id: string): Promise<StoredEvent[]> {
        const events = await super.readStream(db, id);
        reads += 1;
        await super.append(pool, id, events.length, [{ type: 'incremented', data: { by: 1 } }], metadata);
        return events;
      }
    }
    const conflict = handleCommand(pool, new RacingLog(schema), { streamId, decider: counter, command: { by: 1 }, metadata, maxAttempts: 3 });
    await expect(conflict).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(reads).toBe(3);
    // Only the rival's three events are in the stream: the losing attempts left nothing behind.
    expect((await log.readStream(pool, streamId)).length).toBe(3);

    const refusal = handleCommand(pool, log, { streamId, decider: counter, command: { by: 100, max: 10 }, metadata });
    await expect(refusal).rejects.toMatchObject({ code: 'INVALID_REQUEST', field: 'by' });
  });

  it('decides on a history the caller read without reading it again, and on a fresh read when that history was stale or decided nothing', async () => {
    const streamId = `counter-${randomUUID()}`;
    let reads = 0;
    class CountingLog extends EventLog {
      override async readStream(db: Parameters<EventLog['readStream']>[0], id: string): Promise<StoredEvent[]> {
        reads += 1;
        return super.readStream(db, id);
      }
    }
    const counting = new CountingLog(schema);
    await handleCommand(pool, log, { streamId, decider: counter, command: { by: 1 }, metadata });
    const read = await log.readStream(pool, streamId);
    // Current: appended at its version, no read.
    expect((await handleCommand(pool, counting, { streamId, decider: counter, command: { by: 1 }, metadata, history: read })).state).toBe(2);
    expect(reads).toBe(0);
    // Stale (one event behind): the append at its version is refused, and the command is decided on a fresh read.
    expect((await handleCommand(pool, counting, { streamId, decider: counter, command: { by: 1 }, metadata, history: read })).state).toBe(3);
    expect(reads).toBe(1);
    // A refusal on the stale reading (it knows 1; the stream holds 3, which the command needs) is not the answer: the
    // command is decided again on a fresh read, and appended.
    const fromThree: typeof counter = {
      ...counter,
      decide: (command, state) => {
        if (state < 3) throw new AppError('INVALID_FIELD', 'by: not yet', 'by');
        return counter.decide(command, state);
      },
    };
    expect((await handleCommand(pool, counting, { streamId, decider: fromThree, command: { by: 1 }, metadata, history: read })).state).toBe(4);
    expect(reads).toBe(2);
    // A no-op on the caller's reading checks no version: decided again on a fresh read, which appends.
    const noop: typeof counter = { ...counter, decide: (command, state) => (state < 4 ? [] : counter.decide(command, state)) };
    expect((await handleCommand(pool, counting, { streamId, decider: noop, command: { by: 1 }, metadata, history: read })).state).toBe(5);
    expect(reads).toBe(3);
    expect((await log.readStream(pool, streamId)).map((event) => event.streamVersion)).toEqual([1, 2, 3, 4, 5]);
  });

  it('records with each event the view of the stream right after it, when asked to, so that another service can show it', async () => {
    const streamId = `counter-${randomUUID()}`;
    const viewOf = (total: number) => ({ total });
    await handleCommand(pool, log, { streamId, decider: counter, command: { by: 2 }, metadata, viewOf });
    const { state } = await handleCommand(pool, log, { streamId, decider: counter, command: { by: 5, times: 2 }, metadata, viewOf });
    expect(state).toBe(12);
    const events = await log.readStream(pool, streamId);
    expect(events.map((event) => [event.streamVersion, event.metadata.view])).toEqual([
      [1, { total: 2 }],
      [2, { total: 7 }],
      [3, { total: 12 }],
    ]);
    // The rest of the metadata is the command's, on every event.
    expect(events.every((event) => event.metadata.correlationId === 'corr' && event.metadata.tenant.keyId === 'key_test')).toBe(true);

    const plain = `counter-${randomUUID()}`;
    await handleCommand(pool, log, { streamId: plain, decider: counter, command: { by: 1 }, metadata });
    expect((await log.readStream(pool, plain))[0]!.metadata).not.toHaveProperty('view');
  });
});
