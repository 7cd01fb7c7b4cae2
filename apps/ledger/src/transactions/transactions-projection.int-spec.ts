import { Pool, type PoolClient } from 'pg';
import type { StoredEvent } from '@ramp/event-store';
import { TEST_DATABASE_URL } from '@ramp/testing';
import { ProjectionGap, projectTransactionEvents } from './transactions-projection';

/**
 * The read model's writes against PostgreSQL, two consumers at once: a stream's row never steps back to an older
 * version, whichever of two concurrent writers commits last (the upsert's version guard).
 */
describe('transactions projection - concurrent writers never move a row backwards', () => {
  const table = `public.transactions_projection_${process.pid}`;
  let pool: Pool;

  beforeAll(async () => {
    pool = new Pool({ connectionString: TEST_DATABASE_URL, max: 4 });
    await pool.query(`drop table if exists ${table}`);
    await pool.query(`create table ${table} (
      id text primary key, organization_id text not null, environment text not null, generation integer not null default 0,
      type text not null, status text not null, chain text not null, wallet_id text, created_at timestamptz not null,
      updated_at timestamptz not null, stream_version integer not null, view jsonb not null)`);
  });

  afterAll(async () => {
    await pool.query(`drop table if exists ${table}`);
    await pool.end();
  });

  const event = (id: string, version: number, status: 'pending' | 'completed'): StoredEvent => ({
    globalPosition: String(version),
    eventId: `${id}-${version}`,
    streamId: `offramp-${id}`,
    streamVersion: version,
    type: version === 1 ? 'offramp.initiated' : 'offramp.completed',
    data: {},
    transactionId: '1',
    createdAt: '2026-11-26T10:00:00.000Z',
    metadata: {
      correlationId: id,
      causationId: id,
      actor: 'system:test',
      tenant: { organizationId: 'org_projection', environment: 'test', keyId: 'key_projection' },
      view: {
        id,
        type: 'offramp',
        status,
        chain: 'base',
        amount: '10',
        tokenSymbol: 'USDC',
        createdAt: '2026-11-26T10:00:00.000Z',
        updatedAt: `2026-11-26T10:00:0${version}.000Z`,
      },
    } as StoredEvent['metadata'],
  });
  const inTransaction = async (client: PoolClient, work: () => Promise<unknown>) => {
    await client.query('begin');
    await work();
  };

  it('a late first event, written after the second was committed by another consumer, leaves the row at the second', async () => {
    const id = 'txn_01JD7X3Q9Z8K4M2N6P5R7S9RACE';
    const [fast, slow] = [await pool.connect(), await pool.connect()];
    try {
      // One consumer applies versions 1 and 2 (its row is not committed yet); the other, a redelivery of version 1,
      // found no row either, and its insert waits on the first one's.
      await inTransaction(fast, () => projectTransactionEvents(fast, [event(id, 1, 'pending'), event(id, 2, 'completed')], table));
      await slow.query('begin');
      const late = projectTransactionEvents(slow, [event(id, 1, 'pending')], table);
      await new Promise((wait) => setTimeout(wait, 200));
      await fast.query('commit');
      await late;
      await slow.query('commit');
      const { rows } = await pool.query(`select stream_version, status from ${table} where id = $1`, [id]);
      expect(rows).toEqual([{ stream_version: 2, status: 'completed' }]);
    } finally {
      fast.release();
      slow.release();
    }
  });

  it('a newer version replaces the row as before, an older one in a later batch is a duplicate', async () => {
    const id = 'txn_01JD7X3Q9Z8K4M2N6P5R7S9SEQ0';
    expect(await projectTransactionEvents(pool as never, [event(id, 1, 'pending')], table)).toBe(1);
    expect(await projectTransactionEvents(pool as never, [event(id, 2, 'completed')], table)).toBe(1);
    expect(await projectTransactionEvents(pool as never, [event(id, 1, 'pending')], table)).toBe(0);
    const { rows } = await pool.query(`select stream_version, status from ${table} where id = $1`, [id]);
    expect(rows).toEqual([{ stream_version: 2, status: 'completed' }]);
  });

  it("with somewhere to defer to (the rebuild), holds an event whose predecessor has not come, and its stream's later ones", async () => {
    const id = 'txn_01JD7X3Q9Z8K4M2N6P5R7S9DEF0';
    const other = 'txn_01JD7X3Q9Z8K4M2N6P5R7S9DEF1';
    await expect(projectTransactionEvents(pool as never, [event(id, 2, 'pending')], table)).rejects.toBeInstanceOf(ProjectionGap);
    const deferred: StoredEvent[] = [];
    expect(
      await projectTransactionEvents(pool as never, [event(id, 2, 'pending'), event(other, 1, 'pending'), event(id, 3, 'completed')], table, deferred),
    ).toBe(1);
    expect(deferred.map((held) => [held.streamId, held.streamVersion])).toEqual([
      [`offramp-${id}`, 2],
      [`offramp-${id}`, 3],
    ]);
    const none: StoredEvent[] = [];
    expect(await projectTransactionEvents(pool as never, [event(id, 1, 'pending'), ...deferred], table, none)).toBe(3);
    expect(none).toEqual([]);
    const { rows } = await pool.query(`select stream_version, status from ${table} where id = $1`, [id]);
    expect(rows).toEqual([{ stream_version: 3, status: 'completed' }]);
  });
});
