import { Pool } from 'pg';
import { RecordedWaits } from './recorded-waits';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ramp_platform_test';
const channel = `waits_test_${Date.now().toString(36)}`;

describe('RecordedWaits - waiting for a write another process signals', () => {
  const pool = new Pool({ connectionString: DATABASE_URL, max: 2 });
  const logger = { warn: () => undefined };

  beforeAll(async () => {
    await pool.query(`create table ${channel} (key text primary key)`);
  });

  afterAll(async () => {
    await pool.query(`drop table ${channel}`);
    await pool.end();
  });

  const recorded = (key: string) => async () => ((await pool.query(`select key from ${channel} where key = $1`, [key])).rowCount ? key : undefined);
  const write = (key: string, notify: boolean) =>
    pool.query(notify ? `with written as (insert into ${channel} values ($1)) select pg_notify('${channel}', '')` : `insert into ${channel} values ($1)`, [
      key,
    ]);

  it('finds a write at its NOTIFY, not at a later look: the fallback is longer than the wait', async () => {
    const waits = new RecordedWaits({ databaseUrl: DATABASE_URL, applicationName: 'waits-test', channel, logger, fallbackLookMs: 60_000 });
    try {
      let looks = 0;
      const waiting = waits.until(async () => ((looks += 1), recorded('signalled')()), 10_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await write('signalled', true);
      expect(await waiting).toBe('signalled');
      // One look before the write, one after its NOTIFY: no polling in between.
      expect(looks).toBe(2);
    } finally {
      await waits.close();
    }
  });

  it('serves many waiters from one LISTEN, each finding its own write', async () => {
    const waits = new RecordedWaits({ databaseUrl: DATABASE_URL, applicationName: 'waits-test', channel, logger, fallbackLookMs: 60_000 });
    try {
      const waiting = ['a', 'b', 'c'].map((key) => waits.until(recorded(key), 10_000));
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (const key of ['a', 'b', 'c']) await write(key, true);
      expect(await Promise.all(waiting)).toEqual(['a', 'b', 'c']);
      const listeners = await pool.query(`select count(*)::int as n from pg_stat_activity where application_name = 'waits-test'`);
      expect(listeners.rows[0].n).toBe(1);
    } finally {
      await waits.close();
    }
  });

  it('finds a write that sent no NOTIFY at a fallback look, and gives up with undefined at its timeout when nothing is written', async () => {
    const waits = new RecordedWaits({ databaseUrl: DATABASE_URL, applicationName: 'waits-test', channel, logger, fallbackLookMs: 100 });
    try {
      const quiet = waits.until(recorded('quiet'), 10_000);
      await new Promise((resolve) => setTimeout(resolve, 150));
      await write('quiet', false);
      expect(await quiet).toBe('quiet');
      expect(await waits.until(recorded('never'), 400)).toBeUndefined();
    } finally {
      await waits.close();
    }
  });

  it('ends the waits in flight with undefined when closed, and answers undefined to a wait after it', async () => {
    const waits = new RecordedWaits({ databaseUrl: DATABASE_URL, applicationName: 'waits-test', channel, logger, fallbackLookMs: 60_000 });
    const waiting = waits.until(recorded('closing'), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closed = Date.now();
    await waits.close();
    expect(await waiting).toBeUndefined();
    expect(Date.now() - closed).toBeLessThan(5_000);
    expect(await waits.until(recorded('closing'), 30_000)).toBeUndefined();
  });
});
