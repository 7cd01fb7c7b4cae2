import 'reflect-metadata';
import { Config } from '@ramp/config';
import { applyMigrations, createShadow, ensureDatabase, openDatabase, shadowOf, swapInShadow, withTransaction } from '@ramp/database';
import { type StoredEvent } from '@ramp/event-store';
import { connectNats, ensureStream, JETSTREAM_API_TIMEOUT_MS } from '@ramp/messaging';
import { LEDGER_DATABASE } from '../ledger.module';
import { transactionEventStreams } from '@ramp/contracts';
import { ProjectionGap, projectTransactionEvents } from '../transactions/transactions-projection';

const PROJECTIONS = ['transactions'];

/**
 * `npm run projections:rebuild -- transactions`: rebuilds the transactions read model from the event streams of the ramp
 * and swap-transfer services, from their first event. It builds a fresh table beside the live one (the live one keeps
 * serving), swaps it in by name (swapInShadow: a rename in one short transaction, not a copy of every row), then
 * replays what arrived meanwhile (the projection is idempotent by stream version, so events the live consumer also
 * applied are skipped). Prints JSON with the counts and the rate on standard output.
 */
async function main(): Promise<void> {
  const [name] = process.argv.slice(2);
  if (!name || !PROJECTIONS.includes(name)) {
    process.stderr.write(`Usage: npm run projections:rebuild -- ${PROJECTIONS.join('|')}\n`);
    process.exit(2);
  }
  const config = new Config();
  const url = config.string('databaseUrl');
  await ensureDatabase(url);
  const database = await openDatabase({ ...LEDGER_DATABASE, url, poolMax: 4, applicationName: 'projections-rebuild' });
  await applyMigrations(database, LEDGER_DATABASE.schema);
  const { pool } = database;
  const nc = await connectNats(config.nats, 'projections-rebuild');
  const names = transactionEventStreams(config.string('eventsNamespace'));
  const streams = names.map(({ stream }) => stream);
  const started = process.hrtime.bigint();
  try {
    const jsm = await nc.jetstreamManager({ timeout: JETSTREAM_API_TIMEOUT_MS });
    const js = nc.jetstream({ timeout: JETSTREAM_API_TIMEOUT_MS });
    const shadow = shadowOf('ledger.transactions');
    await createShadow(pool, shadow);

    const replay = async (stream: string, table: string, fromSequence: number, toSequence: number): Promise<number> => {
      if (toSequence < fromSequence) return 0;
      const consumer = await js.consumers.get(stream, { opt_start_seq: fromSequence });
      let applied = 0;
      // At most one row per event, 12 parameters a row: 4,000 stays within PostgreSQL's 65,535 parameters a statement.
      const batchSize = 4000;
      // Events whose predecessor has not come yet (a relay's republication may have put them in the log out of order):
      // tried again before each later batch, and once more at the end; any left then is a real gap.
      let waiting: StoredEvent[] = [];
      const write = (events: StoredEvent[]) => {
        const again = waiting;
        const deferred: StoredEvent[] = [];
        // In version order (a stable sort: streams are independent, and each stream's events must come in its order).
        const ordered = [...again, ...events].sort((a, b) => a.streamVersion - b.streamVersion);
        return withTransaction(pool, (tx) => projectTransactionEvents(tx, ordered, table, deferred)).then((count) => {
          waiting = deferred;
          return count;
        });
      };
      // A batch is written while the next is read: one write at a time, in stream order, overlapped with the reading.
      let writing: Promise<number> = Promise.resolve(0);
      for (let next = fromSequence; next <= toSequence;) {
        const events: StoredEvent[] = [];
        const messages = await consumer.fetch({ max_messages: Math.min(batchSize, toSequence - next + 1), expires: 5000 });
        for await (const message of messages) {
          events.push(JSON.parse(message.string()) as StoredEvent);
          next = message.seq + 1;
          if (message.seq >= toSequence) break;
        }
        applied += await writing;
        writing = Promise.resolve(0);
        if (events.length === 0) break;
        writing = write(events);
        // Its failure is the rebuild's, reported at the await above or below; not an unhandled rejection meanwhile.
        writing.catch(() => undefined);
      }
      applied += await writing;
      if (waiting.length > 0) applied += await write([]);
      const [gap] = waiting;
      if (gap) throw new ProjectionGap(`${gap.streamId}: version ${gap.streamVersion} has no predecessor in ${stream}`);
      return applied;
    };

    // Each stream up to where it is now into the fresh table; then the swap; then what arrived meanwhile.
    const firsts = new Map<string, { first_seq: number; last_seq: number; messages: number }>();
    let built = 0;
    for (const { stream, subjectPrefix } of names) {
      // A service that has not started yet has no stream: an empty one is the same thing.
      await ensureStream(jsm, stream, [`${subjectPrefix}.>`], { replicas: config.int('streamReplicas', 1, 5) });
      const state = (await jsm.streams.info(stream)).state;
      firsts.set(stream, state);
      built += state.messages === 0 ? 0 : await replay(stream, shadow.qualified, state.first_seq, state.last_seq);
    }
    await swapInShadow(pool, shadow);
    let caughtUp = 0;
    let events = 0;
    for (const stream of streams) {
      const first = firsts.get(stream)!;
      const last = (await jsm.streams.info(stream)).state.last_seq;
      caughtUp += await replay(stream, 'ledger.transactions', first.last_seq + 1, last);
      events += first.messages === 0 ? 0 : first.last_seq - first.first_seq + 1;
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const { rows } = await pool.query<{ n: number }>(`select count(*)::int as n from ledger.transactions`);
    process.stdout.write(
      `${JSON.stringify({ projection: name, events, eventsApplied: built, caughtUp, transactions: rows[0]?.n ?? 0, seconds: Number(seconds.toFixed(3)), eventsPerSecond: Math.round(events / seconds) })}\n`,
    );
  } finally {
    await nc.drain();
    await database.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`projections:rebuild failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
