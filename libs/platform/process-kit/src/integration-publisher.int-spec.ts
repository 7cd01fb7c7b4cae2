import { randomUUID } from 'crypto';
import { connect, type NatsConnection } from 'nats';
import { Pool } from 'pg';
import { integrationEvents, type TransactionView } from '@ramp/contracts';
import { EventLog, eventStoreMigration, type EventMetadata } from '@ramp/event-store';
import { Metrics } from '@ramp/observability';
import type { AnyTransactionKind } from '@ramp/transactions';
import { IntegrationPublisher } from './service-events';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ramp_platform_test';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** A kind of transaction for the test: its view is its last event's data, and an event marked `broken` cannot be folded. */
const swapKind: AnyTransactionKind = {
  type: 'swap',
  initialState: undefined,
  evolve: (_state, event) => {
    if ((event.data as { broken?: boolean }).broken) throw new Error('this event cannot be folded');
    return event.data;
  },
  view: (state) => state as TransactionView,
};

describe('IntegrationPublisher - what the relay publishes for the transactions that end', () => {
  const schema = `ip_test_${Date.now().toString(36)}`;
  const namespace = `ip${Date.now().toString(36)}`;
  const log = new EventLog(schema);
  const target = integrationEvents(namespace);
  const errors: string[] = [];
  const logger = { info: () => undefined, warn: () => undefined, error: (fields: object) => void errors.push((fields as { eventId: string }).eventId) };
  let pool: Pool;
  let nc: NatsConnection;

  beforeAll(async () => {
    pool = new Pool({ connectionString: DATABASE_URL, max: 2 });
    for (const statement of eventStoreMigration(schema)) await pool.query(statement);
    nc = await connect({ servers: NATS_URL });
  });

  afterAll(async () => {
    await (await nc.jetstreamManager()).streams.delete(target.stream).catch(() => undefined);
    await nc.drain();
    await pool.query(`drop schema ${schema} cascade`);
    await pool.end();
  });

  it('publishes the integration event of a terminal event, and skips, logs and counts one that cannot be built instead of failing the batch', async () => {
    const metrics = new Metrics('test');
    const publisher = new IntegrationPublisher({ nc, log, namespace, kinds: [swapKind], logger, metrics });
    await publisher.ensureTarget();
    const metadata: EventMetadata = {
      correlationId: 'corr',
      causationId: 'cause',
      actor: 'test',
      tenant: { organizationId: 'org_ip', environment: 'test', keyId: 'key_ip' },
    };
    const view = (id: string, status: string) => ({
      id,
      type: 'swap',
      status,
      chain: 'base',
      amount: '1',
      tokenSymbol: 'USDC',
      fees: { platformFee: '0', providerFee: '0', totalFee: '0' },
      createdAt: '2026-11-27T00:00:00.000Z',
      updatedAt: '2026-11-27T00:00:00.000Z',
    });
    const good = `swap-txn_${randomUUID()}`;
    const bad = `swap-txn_${randomUUID()}`;
    const goodEvents = await log.append(
      pool,
      good,
      0,
      [
        { type: 'swap.initiated', data: view(good, 'pending') },
        { type: 'swap.completed', data: view(good, 'completed') },
      ],
      metadata,
    );
    const badEvents = await log.append(
      pool,
      bad,
      0,
      [
        { type: 'swap.initiated', data: view(bad, 'pending') },
        { type: 'swap.failed', data: { broken: true } },
      ],
      metadata,
    );

    // The batch's histories are read in one round trip, whatever the number of transactions that end in it.
    let queries = 0;
    const counted = new Proxy(pool, {
      get: (target, property, receiver) =>
        property === 'query' ? (...args: Parameters<Pool['query']>) => ((queries += 1), target.query(...args)) : Reflect.get(target, property, receiver),
    });
    await publisher.publishEnded(counted, [...goodEvents, ...badEvents]);
    expect(queries).toBe(1);

    const info = await (await nc.jetstreamManager()).streams.info(target.stream);
    expect(info.state.messages).toBe(1);
    const stored = await (await nc.jetstreamManager()).streams.getMessage(target.stream, { seq: info.state.first_seq });
    expect(stored.subject).toBe(`${target.subjectPrefix}.swap.completed`);
    expect(stored.header.get('Nats-Msg-Id')).toBe(goodEvents[1]!.eventId);
    expect(errors).toEqual([badEvents[1]!.eventId]);
    expect((await metrics.exposition()).body).toContain(`ramp_integration_events_unbuildable_total{log="${schema}",service="test"} 1`);
  });
});
