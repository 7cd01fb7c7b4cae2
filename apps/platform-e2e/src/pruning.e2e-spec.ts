import { randomUUID } from 'crypto';
import { Pool } from 'pg';
import { eventually, startServices, stopAll, TEST_DATABASE_URL, type ServiceProcess } from '@ramp/testing';

/**
 * What the services keep only for a while is deleted on a schedule, in batches, and nothing else: stored
 * Idempotency-Key responses an hour after they expire, quotes a week after they expire, finished webhook deliveries and
 * their attempts a month after their last change. Rows are written straight into the services' tables with their ages.
 */
describe('pruning - stored responses, expired quotes and finished deliveries go after their retention, nothing else', () => {
  let services: Map<string, ServiceProcess>;
  let pool: Pool;
  const org = `org_prune_${randomUUID().slice(0, 8)}`;
  const ago = (ms: number) => new Date(Date.now() - ms);
  const HOUR = 3_600_000;
  const DAY = 24 * HOUR;

  beforeAll(async () => {
    services = await startServices(['quote', 'notifier', 'gateway'], { PRUNE_INTERVAL_MS: '300' });
    pool = new Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
  }, 60_000);

  afterAll(async () => {
    await pool.end();
    await stopAll(services.values());
  });

  const idempotency = (key: string, expiresAt: Date) =>
    pool.query(
      `insert into gateway.idempotency_keys (organization_id, environment, idempotency_key, request_hash, state, response_status, response_body, created_at, expires_at)
       values ($1, 'test', $2, 'hash', 'done', 201, '{"success":true}', $3, $4)`,
      [org, key, new Date(expiresAt.getTime() - 24 * HOUR), expiresAt],
    );
  const quote = (id: string, expiresAt: Date) =>
    pool.query(
      `insert into quote.quotes (id, organization_id, environment, kind, request, response, created_at, expires_at) values ($1, $2, 'test', 'onramp', '{}', '{}', $3, $3)`,
      [id, org, expiresAt],
    );
  // One statement: a notifier's pruning running meanwhile (its own loop, a month's retention) could delete an old
  // finished delivery between two inserts, and the attempt's would then fail on its foreign key.
  const delivery = async (id: string, status: string, updatedAt: Date) => {
    await pool.query(
      `with inserted as (
         insert into notifier.deliveries (id, organization_id, environment, webhook_id, target_url, key_id, event_id, event, body, status, attempts, max_attempts, created_at, updated_at)
         values ($1, $2, 'test', null, 'https://example.com/hook', 'key_prune', $3, 'onramp.completed', '{}', $4, 1, 8, $5, $5)
         returning id
       )
       insert into notifier.delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code) select id, 1, $5, 12, 200 from inserted`,
      [id, org, randomUUID(), status, updatedAt],
    );
  };
  const keysLeft = async () =>
    (await pool.query<{ k: string }>(`select idempotency_key as k from gateway.idempotency_keys where organization_id = $1 order by 1`, [org])).rows.map(
      (row) => row.k,
    );

  it('deletes stored responses an hour after they expire, in batches, and keeps the others', async () => {
    // More than two batches of 500 past their retention, beside one expired recently and one still replayable.
    await pool.query(
      `insert into gateway.idempotency_keys (organization_id, environment, idempotency_key, request_hash, state, response_status, response_body, created_at, expires_at)
       select $1, 'test', 'old-' || n, 'hash', 'done', 201, '{}', now() - interval '3 days', now() - interval '2 hours' from generate_series(1, 1200) n`,
      [org],
    );
    await idempotency('expired-recently', ago(10 * 60_000));
    await idempotency('replayable', new Date(Date.now() + HOUR));
    const left = await eventually(keysLeft, (keys) => keys.length === 2, 30_000, 100);
    expect(left).toEqual(['expired-recently', 'replayable']);
  });

  it('deletes quotes a week after they expire and keeps the younger ones', async () => {
    const [old, young] = [`qt_PRUNE${randomUUID().slice(0, 8)}OLD`, `qt_PRUNE${randomUUID().slice(0, 8)}NEW`];
    await quote(old, ago(8 * DAY));
    await quote(young, ago(6 * DAY));
    await eventually(
      async () => (await pool.query(`select id from quote.quotes where id = $1`, [old])).rowCount,
      (count) => count === 0,
      30_000,
      100,
    );
    expect((await pool.query(`select id from quote.quotes where id = $1`, [young])).rowCount).toBe(1);
  });

  it('deletes finished deliveries and their attempts a month after their last change; a pending one stays however old', async () => {
    const id = () => `dlv_PRUNE${randomUUID().replace(/-/g, '').slice(0, 17).toUpperCase()}`;
    const [succeeded, cancelled, pending, recent] = [id(), id(), id(), id()];
    await delivery(succeeded, 'succeeded', ago(31 * DAY));
    await delivery(cancelled, 'cancelled', ago(40 * DAY));
    await delivery(pending, 'pending', ago(45 * DAY));
    await delivery(recent, 'failed', ago(29 * DAY));
    const left = async () =>
      (await pool.query<{ id: string }>(`select id from notifier.deliveries where organization_id = $1 order by id`, [org])).rows.map((row) => row.id);
    await eventually(left, (ids) => ids.length === 2, 30_000, 100);
    expect(await left()).toEqual([pending, recent].sort());
    const attempts = (
      await pool.query<{ delivery_id: string }>(`select delivery_id from notifier.delivery_attempts where delivery_id = any($1) order by 1`, [
        [succeeded, cancelled, pending, recent],
      ])
    ).rows;
    expect(attempts.map((row) => row.delivery_id)).toEqual([pending, recent].sort());
  });

  it('counts what it deleted per table in ramp_pruned_rows_total', async () => {
    const metrics = await (await fetch(`${services.get('gateway')!.url}/metrics`)).text();
    const pruned = /ramp_pruned_rows_total\{[^}]*table="gateway\.idempotency_keys"[^}]*\} (\d+)/.exec(metrics);
    expect(Number(pruned?.[1])).toBeGreaterThanOrEqual(1200);
  });
});
