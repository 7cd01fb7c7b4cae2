import { randomUUID } from 'crypto';
import { Controller, Module, type INestMicroservice, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, MessagePattern, Payload, Transport } from '@nestjs/microservices';
import { connect, type JetStreamClient, type JetStreamManager, type NatsConnection } from 'nats';
import { Pool } from 'pg';
import type { EventStreamName } from '@ramp/contracts';
import { EventLog, eventStoreMigration, type EventMetadata, type StoredEvent } from '@ramp/event-store';
import { currentLogContext, Metrics, type LogContext } from '@ramp/observability';
import { DEAD_LETTER_STREAM, ensureDeadLetterStream, ensureStream, JetStreamEventPattern, JetStreamServer, type JetStreamContext } from './index';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ramp_platform_test';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const NAMESPACE = process.env.EVENTS_NAMESPACE ?? 'test';
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

const metadata: EventMetadata = {
  correlationId: 'corr',
  causationId: 'cause',
  actor: 'test',
  tenant: { organizationId: 'org_test', environment: 'test', keyId: 'key_test' },
};

const schema = `es_test_${Date.now().toString(36)}`;
/** The tests' logical stream: `test.<schema>.<type>`, namespaced as the platform's streams are. */
const testEvents = (namespace = ''): EventStreamName =>
  namespace
    ? { stream: `TEST_${schema.toUpperCase()}_${namespace.toUpperCase()}`, subjectPrefix: `${namespace}.test.${schema}` }
    : { stream: `TEST_${schema.toUpperCase()}`, subjectPrefix: `test.${schema}` };
const { stream, subjectPrefix } = testEvents(NAMESPACE);

async function until(condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((wait) => setTimeout(wait, 25));
  }
}

/** `ramp_events_consumed_total` of one consumer and outcome. */
async function consumed(metrics: Metrics, consumer: string, outcome: string): Promise<number> {
  const { values } = await metrics.eventsConsumed.get();
  return values.find((value) => value.labels.consumer === consumer && value.labels.outcome === outcome)?.value ?? 0;
}

describe('JetStream transport - @JetStreamEventPattern handlers on durable consumers with an inbox in PostgreSQL', () => {
  const log = new EventLog(schema);
  let pool: Pool;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  const running: INestMicroservice[] = [];

  /** Starts the controllers on a JetStreamServer of their own, as a service does; its metrics for the assertions. */
  async function serve(controllers: Type<unknown>[]): Promise<{ app: INestMicroservice; metrics: Metrics }> {
    @Module({ controllers })
    class TestModule {}
    const metrics = new Metrics('test');
    const strategy = new JetStreamServer({ service: 'test', schema, pool, nc, namespace: NAMESPACE, logger: silent, metrics, streams: [testEvents] });
    const app = await NestFactory.createMicroservice(TestModule, { strategy, logger: false });
    await app.listen();
    running.push(app);
    return { app, metrics };
  }

  const publish = async (event: StoredEvent, type: string, msgID = event.eventId) => js.publish(`${subjectPrefix}.${type}`, JSON.stringify(event), { msgID });

  beforeAll(async () => {
    pool = new Pool({ connectionString: DATABASE_URL, max: 30 });
    for (const statement of eventStoreMigration(schema)) await pool.query(statement);
    nc = await connect({ servers: NATS_URL });
    js = nc.jetstream();
    jsm = await nc.jetstreamManager();
    await ensureStream(jsm, stream, [`${subjectPrefix}.>`]);
    await ensureDeadLetterStream(jsm);
  });

  afterEach(async () => {
    for (const app of running.splice(0)) await app.close();
  });

  afterAll(async () => {
    await jsm.streams.delete(stream).catch(() => undefined);
    await nc.drain();
    await pool.query(`drop schema ${schema} cascade`);
    await pool.end();
  });

  it('handles a duplicated delivery once, dead-letters an event that keeps failing, and retries a transient failure until it clears', async () => {
    const durable = `consumer_${schema}`;
    const seen: string[] = [];
    const contexts: LogContext[] = [];
    class WaitError extends Error {}
    let waited = 0;
    @Controller()
    class ConsumedEventsController {
      @JetStreamEventPattern(`test.${schema}.consumed`, { durable, maxAttempts: 3, isTransient: (error) => error instanceof WaitError, backoffMs: [50] })
      async handle(@Payload() event: StoredEvent, @Ctx() context: JetStreamContext): Promise<void> {
        if ((event.data as { poison?: boolean }).poison) throw new Error('cannot handle this one');
        // Transient: fails 5 times (more than maxAttempts), then goes through; it must never be dead-lettered.
        if ((event.data as { waits?: boolean }).waits && (waited += 1) <= 5) throw new WaitError('not yet');
        seen.push(event.eventId);
        contexts.push(currentLogContext());
        await context.tx.query(`select 1`);
      }

      // Not the transport's: a message pattern, and an event handler of another transport.
      @MessagePattern(`test.${schema}.consumed`)
      answer(): string {
        return 'not bound';
      }

      @EventPattern(`test.${schema}.>`, Transport.NATS)
      elsewhere(): void {
        throw new Error('bound to the wrong transport');
      }
    }
    const { metrics } = await serve([ConsumedEventsController]);

    // The pattern names the subjects as production would; the consumer reads them under the namespace.
    expect((await jsm.consumers.list(stream).next()).map((consumer) => [consumer.name, consumer.config.filter_subject])).toEqual([
      [durable, `${subjectPrefix}.consumed`],
    ]);

    const [event] = await log.append(pool, `c-${randomUUID()}`, 0, [{ type: 'consumed', data: {} }], metadata);
    // Published twice with different message ids, as a relay would after the duplicate window.
    await publish(event!, 'consumed', `${event!.eventId}-1`);
    await publish(event!, 'consumed', `${event!.eventId}-2`);
    await until(async () => (await consumed(metrics, durable, 'handled')) + (await consumed(metrics, durable, 'duplicate')) >= 2);
    expect(seen).toEqual([event!.eventId]);
    expect(await consumed(metrics, durable, 'duplicate')).toBe(1);
    expect(contexts[0]).toMatchObject({ eventId: event!.eventId, correlationId: 'corr', causationId: 'cause' });

    const [poison] = await log.append(pool, `c-${randomUUID()}`, 0, [{ type: 'consumed', data: { poison: true } }], metadata);
    const deadBefore = (await jsm.streams.info(DEAD_LETTER_STREAM)).state.messages;
    await publish(poison!, 'consumed');
    await until(async () => (await jsm.streams.info(DEAD_LETTER_STREAM)).state.messages > deadBefore);
    const dead = await jsm.streams.getMessage(DEAD_LETTER_STREAM, { last_by_subj: `deadletter.test.${durable}` });
    expect(JSON.parse(new TextDecoder().decode(dead.data)).eventId).toBe(poison!.eventId);
    expect(dead.header.get('Error')).toContain('cannot handle this one');
    expect(dead.header.get('Attempts')).toBe('3');
    const inbox = await pool.query(`select count(*)::int as n from ${schema}.inbox where event_id = $1`, [poison!.eventId]);
    expect(inbox.rows[0].n).toBe(0);
    expect(await consumed(metrics, durable, 'dead_lettered')).toBe(1);

    const [patient] = await log.append(pool, `c-${randomUUID()}`, 0, [{ type: 'consumed', data: { waits: true } }], metadata);
    const deadAfterPoison = (await jsm.streams.info(DEAD_LETTER_STREAM)).state.messages;
    await publish(patient!, 'consumed');
    await until(() => seen.includes(patient!.eventId));
    expect(waited).toBe(6);
    expect((await jsm.streams.info(DEAD_LETTER_STREAM)).state.messages).toBe(deadAfterPoison);
  });

  it('in batches: handles 300 events, each once, in fewer transactions, and one poison event holds up none of the others', async () => {
    const durable = `batched_${schema}`;
    const seen: string[] = [];
    const transactions = new Set<string>();
    @Controller()
    class BatchedEventsController {
      @JetStreamEventPattern(`test.${schema}.batched`, { durable, batchSize: 50, maxAttempts: 2, backoffMs: [50] })
      async handle(@Payload() event: StoredEvent, @Ctx() context: JetStreamContext): Promise<void> {
        if ((event.data as { poison?: boolean }).poison) throw new Error('cannot handle this one');
        seen.push(event.eventId);
        const xid = await context.tx.query<{ xid: string }>(`select pg_current_xact_id()::text as xid`);
        transactions.add(xid.rows[0]!.xid);
      }
    }
    const events: StoredEvent[] = [];
    for (let i = 0; i < 300; i++) {
      const [event] = await log.append(pool, `b-${randomUUID()}`, 0, [{ type: 'batched', data: { poison: i === 150 } }], metadata);
      events.push(event!);
    }
    // Published before the consumer starts, so that they wait together; the 10th also twice.
    for (const event of events) await publish(event, 'batched');
    await publish(events[10]!, 'batched', `${events[10]!.eventId}-again`);
    const { metrics } = await serve([BatchedEventsController]);
    await until(async () => (await consumed(metrics, durable, 'handled')) + (await consumed(metrics, durable, 'duplicate')) >= 300);
    const healthy = events.filter((_, i) => i !== 150).map((event) => event.eventId);
    expect(new Set(seen)).toEqual(new Set(healthy));
    // A failed batch is rolled back whole and handled again event by event: nothing is handled twice after commit.
    const inbox = await pool.query<{ n: number }>(`select count(*)::int as n from ${schema}.inbox where consumer = $1`, [durable]);
    expect(inbox.rows[0]!.n).toBe(299);
    expect(await consumed(metrics, durable, 'handled')).toBe(299);
    expect(await consumed(metrics, durable, 'duplicate')).toBe(1);
    expect(transactions.size).toBeLessThan(100);
  });

  it('a handler that names its types is given only those: the others are acknowledged without a transaction or an inbox row, one by one and in batches', async () => {
    const seen: Record<string, string[]> = { single: [], batched: [] };
    @Controller()
    class TypedEventsController {
      @JetStreamEventPattern(`test.${schema}.typed.>`, { durable: `typed_single_${schema}`, types: ['typed.wanted'] })
      async single(@Payload() event: StoredEvent, @Ctx() context: JetStreamContext): Promise<void> {
        seen.single!.push(event.type);
        await context.tx.query(`select 1`);
      }

      @JetStreamEventPattern(`test.${schema}.typed.>`, { durable: `typed_batched_${schema}`, types: ['typed.wanted'], batchSize: 20 })
      async batched(@Payload() event: StoredEvent): Promise<void> {
        seen.batched!.push(event.type);
      }
    }
    const types = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? 'typed.wanted' : 'typed.other'));
    const events: StoredEvent[] = [];
    for (const type of types) events.push((await log.append(pool, `t-${randomUUID()}`, 0, [{ type, data: {} }], metadata))[0]!);
    for (const event of events) await publish(event, event.type);
    const { metrics } = await serve([TypedEventsController]);
    for (const durable of [`typed_single_${schema}`, `typed_batched_${schema}`]) {
      await until(async () => (await consumed(metrics, durable, 'handled')) + (await consumed(metrics, durable, 'skipped')) >= 30);
      expect(await consumed(metrics, durable, 'handled')).toBe(10);
      expect(await consumed(metrics, durable, 'skipped')).toBe(20);
      const info = await jsm.consumers.info(stream, durable);
      expect({ ackPending: info.num_ack_pending, pending: info.num_pending }).toEqual({ ackPending: 0, pending: 0 });
    }
    expect(seen.single).toEqual(Array(10).fill('typed.wanted'));
    expect(seen.batched).toEqual(Array(10).fill('typed.wanted'));
    const inbox = await pool.query<{ consumer: string; n: number }>(
      `select consumer, count(*)::int as n from ${schema}.inbox where consumer like 'typed_%' group by consumer order by consumer`,
    );
    expect(inbox.rows).toEqual([
      { consumer: `typed_batched_${schema}`, n: 10 },
      { consumer: `typed_single_${schema}`, n: 10 },
    ]);
  });

  it("a durable created to start at 'new' skips the stream's history, and resumes where it stopped after a restart", async () => {
    const durable = `fresh_${schema}`;
    const seen: string[] = [];
    @Controller()
    class FreshEventsController {
      @JetStreamEventPattern(`test.${schema}.fresh`, { durable, inbox: false, startAt: 'new' })
      async handle(@Payload() event: StoredEvent): Promise<void> {
        seen.push(event.eventId);
      }
    }
    const append = async () => (await log.append(pool, `f-${randomUUID()}`, 0, [{ type: 'fresh', data: {} }], metadata))[0]!;
    const history = await append();
    await publish(history, 'fresh');
    const first = await serve([FreshEventsController]);
    const now = await append();
    await publish(now, 'fresh');
    await until(() => seen.includes(now.eventId));
    await first.app.close();
    running.splice(running.indexOf(first.app), 1);
    // Appended while it was stopped: delivered at its next start, as any durable's.
    const meanwhile = await append();
    await publish(meanwhile, 'fresh');
    await serve([FreshEventsController]);
    await until(() => seen.includes(meanwhile.eventId));
    expect(seen).toEqual([now.eventId, meanwhile.eventId]);
  });

  it('on shutdown: stops fetching, commits and acknowledges what it was given, and the next start redelivers nothing twice', async () => {
    const durable = `shutdown_${schema}`;
    const calls = new Map<string, number>();
    let entered: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => (entered = resolve));
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const events: StoredEvent[] = [];
    for (let i = 0; i < 20; i++) {
      const [event] = await log.append(pool, `s-${randomUUID()}`, 0, [{ type: 'slow', data: {} }], metadata);
      events.push(event!);
    }
    const first = events[0]!.eventId;
    @Controller()
    class SlowEventsController {
      @JetStreamEventPattern(`test.${schema}.slow`, { durable })
      async handle(@Payload() event: StoredEvent, @Ctx() context: JetStreamContext): Promise<void> {
        calls.set(event.eventId, (calls.get(event.eventId) ?? 0) + 1);
        await context.tx.query(`select 1`);
        if (event.eventId === first) {
          entered();
          await released;
        }
      }
    }
    for (const event of events.slice(0, 5)) await publish(event, 'slow');

    const before = await serve([SlowEventsController]);
    await inFlight;
    const closing = running.splice(0)[0]!.close();
    // Published while the first event is in flight and the replica is stopping.
    for (const event of events.slice(5)) await publish(event, 'slow');
    release();
    await closing;
    // Everything the stopped replica was given is committed and acknowledged; nothing waits for an ack wait to end.
    const handledBefore = await consumed(before.metrics, durable, 'handled');
    const inbox = await pool.query<{ event_id: string }>(`select event_id from ${schema}.inbox where consumer = $1`, [durable]);
    expect(inbox.rows.map((row) => row.event_id)).toContain(first);
    expect(inbox.rows).toHaveLength(handledBefore);
    const info = await jsm.consumers.info(stream, durable);
    expect({ ackPending: info.num_ack_pending, pending: info.num_pending }).toEqual({ ackPending: 0, pending: events.length - handledBefore });

    const after = await serve([SlowEventsController]);
    await until(async () => handledBefore + (await consumed(after.metrics, durable, 'handled')) >= events.length);
    expect(Object.fromEntries(calls)).toEqual(Object.fromEntries(events.map((event) => [event.eventId, 1])));
    expect(await consumed(after.metrics, durable, 'duplicate')).toBe(0);
  });
});
