import { randomUUID } from 'crypto';
import { connect, type JetStreamClient, type JetStreamManager, type NatsConnection } from 'nats';
import { Pool } from 'pg';
import { Metrics } from '@ramp/observability';
import { withTransaction } from '@ramp/database';
import { EventLog, Relay, StreamVersionConflict, eventStoreMigration, type EventMetadata, type StoredEvent } from './index';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ramp_platform_test';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

const metadata: EventMetadata = {
  correlationId: 'corr',
  causationId: 'cause',
  actor: 'test',
  tenant: { organizationId: 'org_test', environment: 'test', keyId: 'key_test' },
};

async function until(condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((wait) => setTimeout(wait, 25));
  }
}

describe('event store - the log, commands and the relay on real PostgreSQL and JetStream', () => {
  const schema = `es_test_${Date.now().toString(36)}`;
  const log = new EventLog(schema);
  let pool: Pool;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  const stream = `TEST_${schema.toUpperCase()}`;
  const subjectOf = (event: StoredEvent) => `test.${schema}.${event.type}`;

  beforeAll(async () => {
    pool = new Pool({ connectionString: DATABASE_URL, max: 30 });
    for (const statement of eventStoreMigration(schema)) await pool.query(statement);
    nc = await connect({ servers: NATS_URL });
    js = nc.jetstream();
    jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: stream, subjects: [`test.${schema}.>`] });
  });

  afterAll(async () => {
    await jsm.streams.delete(stream).catch(() => undefined);
    await nc.drain();
    await pool.query(`drop schema ${schema} cascade`);
    await pool.end();
  });

  it('appends at an expected version and reads a stream back in order', async () => {
    const streamId = `s-${randomUUID()}`;
    const appended = await log.append(
      pool,
      streamId,
      0,
      [
        { type: 'a', data: { n: 1 } },
        { type: 'b', data: { n: 2 } },
      ],
      metadata,
    );
    expect(appended.map((event) => event.streamVersion)).toEqual([1, 2]);
    const read = await log.readStream(pool, streamId);
    expect(read.map((event) => [event.type, event.data, event.metadata.correlationId])).toEqual([
      ['a', { n: 1 }, 'corr'],
      ['b', { n: 2 }, 'corr'],
    ]);
    await expect(log.append(pool, streamId, 1, [{ type: 'c', data: {} }], metadata)).rejects.toBeInstanceOf(StreamVersionConflict);
  });

  it('lets exactly one of two concurrent appends at the same version win', async () => {
    const streamId = `s-${randomUUID()}`;
    const results = await Promise.allSettled(
      [1, 2].map((n) => withTransaction(pool, (tx) => log.append(tx, streamId, 0, [{ type: 'x', data: { n } }], metadata))),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect((results.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(StreamVersionConflict);
  });

  it('survives the database dropping a connection in the middle of a transaction: the work fails, the process and the pool go on', async () => {
    let listeners = 0;
    const failed = withTransaction(pool, async (tx) => {
      listeners = tx.listenerCount('error');
      const { rows } = await tx.query<{ pid: number }>('select pg_backend_pid() as pid');
      // What a PostgreSQL restart does to every session: terminated while the transaction is open (waiting until it is).
      await pool.query('select pg_terminate_backend($1, 5000)', [rows[0]!.pid]);
      await tx.query('select 1');
    });
    await expect(failed).rejects.toThrow();
    // The pool stops listening to a client it lends out: unheard, the connection's error would kill the process.
    expect(listeners).toBeGreaterThan(0);
    expect((await pool.query<{ one: number }>('select 1 as one')).rows[0]!.one).toBe(1);
  });

  it('refuses UPDATE, DELETE and TRUNCATE on the log, and the application role may only insert and read', async () => {
    const streamId = `s-${randomUUID()}`;
    await log.append(pool, streamId, 0, [{ type: 'a', data: {} }], metadata);
    await expect(pool.query(`update ${schema}.events set type = 'b' where stream_id = $1`, [streamId])).rejects.toThrow(/append-only/);
    await expect(pool.query(`delete from ${schema}.events where stream_id = $1`, [streamId])).rejects.toThrow(/append-only/);
    await expect(pool.query(`truncate ${schema}.events`)).rejects.toThrow(/append-only/);
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query('set local role ramp_app');
      await log.append(client, streamId, 1, [{ type: 'b', data: {} }], metadata);
      expect((await log.readStream(client, streamId)).length).toBe(2);
      await client.query('savepoint before_update');
      await expect(client.query(`update ${schema}.events set type = 'c'`)).rejects.toThrow(/permission denied/);
      await client.query('rollback to savepoint before_update');
      await expect(client.query(`delete from ${schema}.events`)).rejects.toThrow(/permission denied/);
    } finally {
      await client.query('rollback');
      client.release();
    }
  });

  it('never skips an event committed late: a reader sees it in its turn, after the earlier transaction commits', async () => {
    const start = await lastCheckpoint();
    const slow = await pool.connect();
    try {
      await slow.query('begin');
      const late = await log.append(slow, `slow-${randomUUID()}`, 0, [{ type: 'late', data: {} }], metadata);
      const early = await log.append(pool, `fast-${randomUUID()}`, 0, [{ type: 'early', data: {} }], metadata);
      // The fast event has the higher position but the slow transaction is still open: nothing past it is readable.
      expect(BigInt(early[0]!.globalPosition)).toBeGreaterThan(BigInt(late[0]!.globalPosition));
      const whileOpen = await log.readAll(pool, start);
      expect(whileOpen.map((event) => event.eventId)).not.toContain(early[0]!.eventId);
      await slow.query('commit');
      const after = await log.readAll(pool, start);
      const ids = after.map((event) => event.eventId);
      expect(ids).toContain(late[0]!.eventId);
      expect(ids).toContain(early[0]!.eventId);
      expect(ids.indexOf(late[0]!.eventId)).toBeLessThan(ids.indexOf(early[0]!.eventId));
    } finally {
      slow.release();
    }
  });

  it('reads what the relay has yet to publish after its checkpoint as the table holds it, moved or reset', async () => {
    const checkpointTable = `${schema}.relay_checkpoint`;
    const saved = (await pool.query(`select transaction_id::text, global_position::text from ${checkpointTable} where id = 1`)).rows[0];
    try {
      const start = (await lastCheckpoint())!;
      await pool.query(`update ${checkpointTable} set transaction_id = $1, global_position = $2 where id = 1`, [start.transactionId, start.globalPosition]);
      expect(await log.readUnpublished(pool)).toEqual([]);
      const [appended] = await log.append(pool, `unpublished-${randomUUID()}`, 0, [{ type: 'fresh', data: {} }], metadata);
      expect((await log.readUnpublished(pool)).map((event) => event.eventId)).toEqual([appended!.eventId]);
      // The stream lost, the checkpoint reset: the whole log again, oldest first, as readAll from the start reads it.
      await pool.query(`update ${checkpointTable} set transaction_id = '0', global_position = 0 where id = 1`);
      const everything = (await log.readAll(pool, undefined, 3)).map((event) => event.eventId);
      expect(everything).toHaveLength(3);
      expect((await log.readUnpublished(pool, 3)).map((event) => event.eventId)).toEqual(everything);
      // No checkpoint row at all: from the start too, never nothing.
      await pool.query(`delete from ${checkpointTable} where id = 1`);
      expect((await log.readUnpublished(pool, 3)).map((event) => event.eventId)).toEqual(everything);
    } finally {
      await pool.query(`insert into ${checkpointTable} (id, transaction_id, global_position) values (1, '0', 0) on conflict (id) do nothing`);
      await pool.query(`update ${checkpointTable} set transaction_id = $1, global_position = $2 where id = 1`, [saved.transaction_id, saved.global_position]);
    }
  });

  async function lastCheckpoint() {
    const all = await log.readAll(pool, undefined, 1_000_000);
    const last = all[all.length - 1];
    return last ? EventLog.checkpointOf(last) : undefined;
  }

  it('relays every committed event to JetStream once, in order, with one leader among replicas, late commits included', async () => {
    const relays = [0, 1].map(() => new Relay({ connection: { connectionString: DATABASE_URL }, log, js, subjectOf, pollMs: 100, logger: silent }));
    relays.forEach((relay) => relay.start());
    try {
      await until(() => relays.some((relay) => relay.isLeader));
      await new Promise((wait) => setTimeout(wait, 300));
      expect(relays.filter((relay) => relay.isLeader)).toHaveLength(1);

      const slow = await pool.connect();
      await slow.query('begin');
      const late = await log.append(slow, `relay-${randomUUID()}`, 0, [{ type: 'late', data: {} }], metadata);
      const written: string[] = [];
      for (let i = 0; i < 50; i++)
        written.push(...(await log.append(pool, `relay-${randomUUID()}`, 0, [{ type: 'n', data: { i } }], metadata)).map((e) => e.eventId));
      await slow.query('commit');
      slow.release();
      written.push(late[0]!.eventId);

      // The leader goes away mid-way; the other replica takes over from the checkpoint.
      const leader = relays.find((relay) => relay.isLeader)!;
      await leader.stop();
      for (let i = 0; i < 50; i++)
        written.push(...(await log.append(pool, `relay-${randomUUID()}`, 0, [{ type: 'n', data: { i } }], metadata)).map((e) => e.eventId));
      const follower = relays.find((relay) => relay !== leader)!;
      await until(() => follower.isLeader);
      // Everything published (the checkpoint past it) before the stream is read: the relay pauses between passes, so a
      // stream whose count holds still for a moment may still be filling.
      await until(async () => (await log.relayBacklog(pool)).unpublished === 0);

      const received = await readStreamIds(written.length + 100);
      for (const id of written) expect(received).toContain(id);
      expect(new Set(received).size).toBe(received.length);
    } finally {
      await Promise.all(relays.map((relay) => relay.stop()));
    }
  });

  it('finds an append that sent no NOTIFY, committed as the pass before it ends, without waiting for the poll', async () => {
    await drainBacklog();

    // Its poll is a minute away, and of this log's appends only the first notifies (the window is a minute). The second
    // is committed while the relay finishes the pass that found the first (in afterPublish): only the relay's look
    // again after a pass that found events can find it within the test.
    const quiet = new EventLog(schema, 60_000);
    let second: Promise<StoredEvent[]> | undefined;
    const relay = new Relay({
      connection: { connectionString: DATABASE_URL },
      log,
      js,
      subjectOf,
      pollMs: 60_000,
      logger: silent,
      afterPublish: async () => {
        second ??= quiet.append(pool, `settle-${randomUUID()}`, 0, [{ type: 'second', data: {} }], metadata);
        await second;
      },
    });
    relay.start();
    try {
      await until(() => relay.isLeader);
      const first = await quiet.append(pool, `settle-${randomUUID()}`, 0, [{ type: 'first', data: {} }], metadata);
      await until(async () => second !== undefined && (await log.relayBacklog(pool)).unpublished === 0, 5_000);
      const received = await readStreamIds(1);
      expect(received).toContain(first[0]!.eventId);
      expect(received).toContain((await second!)[0]!.eventId);
    } finally {
      await relay.stop();
    }
  });

  it('hands each batch it published to afterPublish before its checkpoint moves: a failure there publishes the batch again', async () => {
    await drainBacklog();

    const streamId = `after-${randomUUID()}`;
    const appended = await log.append(pool, streamId, 0, [{ type: 'ended', data: {} }], metadata);
    const seen: string[][] = [];
    let failures = 1;
    const relay = new Relay({
      connection: { connectionString: DATABASE_URL },
      log,
      js,
      subjectOf,
      pollMs: 100,
      logger: silent,
      afterPublish: async (client, events) => {
        seen.push(events.map((event) => event.eventId));
        // What it is given is published already, and it may read the log on the relay's connection.
        expect((await log.readStream(client, streamId)).map((event) => event.eventId)).toEqual([appended[0]!.eventId]);
        if (failures-- > 0) throw new Error('the integration stream is away');
      },
    });
    relay.start();
    try {
      await until(async () => (await log.relayBacklog(pool)).unpublished === 0);
      // Once refused (the checkpoint stayed), then given again and accepted.
      expect(seen).toEqual([[appended[0]!.eventId], [appended[0]!.eventId]]);
    } finally {
      await relay.stop();
    }
  });

  it("reports the relay's backlog exactly: the events after its checkpoint and the age of the oldest, 0 once relayed", async () => {
    await drainBacklog();

    // No relay runs: what is appended now waits.
    await log.append(
      pool,
      `backlog-${randomUUID()}`,
      0,
      Array.from({ length: 7 }, (_, i) => ({ type: 'waiting', data: { i } })),
      metadata,
    );
    await log.append(pool, `backlog-${randomUUID()}`, 0, [{ type: 'waiting', data: {} }], metadata);
    await new Promise((wait) => setTimeout(wait, 1100));
    const waiting = await log.relayBacklog(pool);
    expect(waiting.unpublished).toBe(8);
    expect(waiting.oldestSeconds).toBeGreaterThanOrEqual(1);

    const metrics = new Metrics('test');
    const relay = new Relay({ connection: { connectionString: DATABASE_URL }, log, js, subjectOf, pollMs: 100, logger: silent, metrics: { metrics, pool } });
    relay.start();
    try {
      await until(async () => (await log.relayBacklog(pool)).unpublished === 0);
      expect((await log.relayBacklog(pool)).oldestSeconds).toBe(0);
      const { body } = await metrics.exposition();
      expect(body).toContain(`ramp_relay_leader{log="${schema}",service="test"} 1`);
      expect(body).toContain(`ramp_relay_unpublished_events{log="${schema}",service="test"} 0`);
    } finally {
      await relay.stop();
    }
    expect((await metrics.exposition()).body).not.toContain(`log="${schema}"`);
  });

  /** Publishes whatever earlier tests left, with a relay of its own, so that a test starts from an empty backlog. */
  async function drainBacklog(): Promise<void> {
    const drain = new Relay({ connection: { connectionString: DATABASE_URL }, log, js, subjectOf, pollMs: 100, logger: silent });
    drain.start();
    try {
      await until(async () => (await log.relayBacklog(pool)).unpublished === 0);
    } finally {
      await drain.stop();
    }
  }

  async function readStreamIds(atLeast: number): Promise<string[]> {
    const ids: string[] = [];
    await until(async () => (await jsm.streams.info(stream)).state.messages >= Math.min(atLeast, 1), 10_000);
    let last = 0;
    await until(async () => {
      const messages = (await jsm.streams.info(stream)).state.messages;
      const stable = messages === last;
      last = messages;
      return stable && messages > 0;
    });
    const consumer = await js.consumers.get(stream);
    const batch = await consumer.fetch({ max_messages: last, expires: 2000 });
    for await (const message of batch) {
      ids.push((JSON.parse(message.string()) as StoredEvent).eventId);
      if (ids.length >= last) break;
    }
    return ids;
  }
});
