import { readFileSync } from 'fs';
import { createServer } from 'https';
import type { IncomingMessage } from 'http';
import type { AddressInfo } from 'net';
import { Pool } from 'pg';
import { applyMigrations, ensureDatabase, openDatabase, withTransaction, Waker } from '@ramp/database';
import { SecretBox } from '@ramp/keys';
import { eventually, makeTestCertificates, TEST_DATABASE_URL, WebhookReceiver } from '@ramp/testing';
import { NOTIFIER_DATABASE } from '../notifier.module';
import { AllowedHosts } from '@ramp/webhooks';
import { WebhookRegistry } from '../webhooks/webhook-registry';
import { DeliveryStore } from './delivery-store';
import { DeliveryWorker, systemClock, type Clock } from './delivery-worker';
import { HttpsSender } from './https-sender';
import { SigningSecrets } from './signing-secrets';
import { TargetDns } from '../webhooks/target-dns';

const dns = new TargetDns({ timeoutMs: 1000, tries: 1 });

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A clock the test moves by hand. */
class HandClock implements Clock {
  constructor(private at: number) {}
  now(): Date {
    return new Date(this.at);
  }
  set(at: number): void {
    this.at = at;
  }
}

describe('delivery worker - the retry schedule on a controllable clock, leases across replicas', () => {
  const certificates = makeTestCertificates();
  const secrets = new Map<string, string>();
  /** Per path: how many attempts fail before the receiver answers 200 (Infinity: always 500). */
  const failuresBefore = new Map<string, number>();
  const receiver: WebhookReceiver = new WebhookReceiver(certificates, {
    secretFor: (path) => secrets.get(path),
    statusFor: (path): number => (receiver.on(path).length < (failuresBefore.get(path) ?? 0) ? 500 : 200),
  });
  const allowed = new AllowedHosts(['localhost']);
  const box = new SecretBox(undefined, false);
  let pool: Pool;
  let store: DeliveryStore;
  let registry: WebhookRegistry;
  let sender: HttpsSender;
  const tenant = { organizationId: `org_worker_${Date.now()}`, environment: 'test' as const, keyId: 'key_none' };

  const worker = (clock: Clock) => new DeliveryWorker(workerOptions(clock));
  const workerOptions = (clock: Clock) => ({
    store,
    sender,
    secrets: new SigningSecrets(box, async () => {
      throw new Error('no callbacks here');
    }),
    clock,
    concurrency: 50,
    leaseMs: 45_000,
    pollMs: 50,
    waker: new Waker(),
    logger: { warn: () => undefined, error: () => undefined },
  });

  const event = async (webhookPath: string, at: Date, count = 1): Promise<string[]> => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const eventId = crypto.randomUUID();
      const body = JSON.stringify({
        event: 'offramp.completed',
        timestamp: at.toISOString(),
        data: { transactionId: `txn_${webhookPath}_${i}`, metadata: { eventId } },
      });
      await withTransaction(pool, (tx) =>
        store.recordEvent(
          tx,
          {
            eventId,
            type: 'offramp.completed',
            body,
            transactionId: null,
            organizationId: tenant.organizationId,
            environment: 'test',
            generation: 0,
            keyId: null,
            callbackUrl: null,
          },
          at,
        ),
      );
      ids.push(eventId);
    }
    return ids;
  };

  const register = async (path: string) => {
    const created = await registry.create({ ...tenant }, { url: receiver.url(path), events: ['offramp.completed'] });
    secrets.set(path, created.secret!);
    return created.id;
  };

  beforeAll(async () => {
    // The suite owns its schema: it must not depend on another suite having run the notifier's migrations first.
    await ensureDatabase(TEST_DATABASE_URL);
    const migrating = await openDatabase({ ...NOTIFIER_DATABASE, url: TEST_DATABASE_URL, poolMax: 2 });
    try {
      await applyMigrations(migrating, NOTIFIER_DATABASE.schema);
    } finally {
      await migrating.close();
    }
    await receiver.start();
    pool = new Pool({ connectionString: TEST_DATABASE_URL, max: 10 });
    store = new DeliveryStore(pool);
    registry = new WebhookRegistry(pool, box, allowed, dns);
    sender = new HttpsSender({
      allowed,
      extraCa: readFileSync(certificates.caFile, 'utf8'),
      timeoutMs: 5000,
      maxSocketsPerHost: 20,
      resolve: (host, callback) => dns.lookup(host, callback),
    });
  });

  beforeEach(async () => {
    // The test database is shared by the suites: only this test's deliveries may come due on its clock.
    await pool.query(`update notifier.deliveries set status = 'cancelled', next_attempt_at = null where status = 'pending'`);
    tenant.organizationId = `org_worker_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
  });

  afterAll(async () => {
    sender.close();
    await pool.end();
    await receiver.stop();
  });

  it('retries 1 m, 5 m, 30 m, 2 h and 24 h after each failed attempt, then marks the delivery failed; each step by a new worker', async () => {
    await register('/down');
    failuresBefore.set('/down', Infinity);
    const start = Date.now();
    const clock = new HandClock(start);
    await event('/down', clock.now());

    expect(await worker(clock).runDue()).toBe(1);
    const expectedGaps = [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 24 * HOUR];
    let last = start;
    for (const gap of expectedGaps) {
      // One millisecond early: nothing is due. A fresh worker each time: the schedule lives in the database.
      clock.set(last + gap - 1);
      expect(await worker(clock).runDue()).toBe(0);
      clock.set(last + gap);
      expect(await worker(clock).runDue()).toBe(1);
      last += gap;
    }
    clock.set(last + 30 * 24 * HOUR);
    expect(await worker(clock).runDue()).toBe(0);

    const attempts = receiver.on('/down');
    expect(attempts.map((delivery) => delivery.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(attempts.every((delivery) => delivery.signatureValid)).toBe(true);
    expect(new Set(attempts.map((delivery) => delivery.headers['webhook-id'])).size).toBe(1);
    const timestamps = attempts.map((delivery) => Number(delivery.headers['webhook-timestamp']) * 1000);
    expect(timestamps.slice(1).map((at, i) => at - timestamps[i]!)).toEqual(expectedGaps);

    const row = await pool.query(`select status, attempts, next_attempt_at from notifier.deliveries where organization_id = $1`, [tenant.organizationId]);
    expect(row.rows).toEqual([{ status: 'failed', attempts: 6, next_attempt_at: null }]);
    const recorded = await pool.query(
      `select attempt, status_code, error from notifier.delivery_attempts a join notifier.deliveries d on d.id = a.delivery_id where d.organization_id = $1 order by attempt`,
      [tenant.organizationId],
    );
    expect(recorded.rows.map((r) => [r.attempt, r.status_code, r.error])).toEqual([1, 2, 3, 4, 5, 6].map((n) => [n, 500, 'HTTP 500: not now']));
  });

  it('stops at the first 2xx: two failures, then delivered on the third attempt', async () => {
    await register('/flaky');
    failuresBefore.set('/flaky', 2);
    const start = Date.now();
    const clock = new HandClock(start);
    await event('/flaky', clock.now());
    const run = worker(clock);
    expect(await run.runDue()).toBe(1);
    clock.set(start + MINUTE);
    expect(await run.runDue()).toBe(1);
    clock.set(start + MINUTE + 5 * MINUTE);
    expect(await run.runDue()).toBe(1);
    clock.set(start + 48 * HOUR);
    expect(await run.runDue()).toBe(0);
    expect(receiver.on('/flaky').map((delivery) => delivery.status)).toEqual([500, 500, 200]);
    const row = await pool.query(`select status, attempts from notifier.deliveries where organization_id = $1 and status <> 'cancelled'`, [
      tenant.organizationId,
    ]);
    expect(row.rows).toEqual([{ status: 'succeeded', attempts: 3 }]);
  });

  it('three replicas racing over 300 due deliveries send each exactly once', async () => {
    await register('/race');
    const clock = new HandClock(Date.now());
    await event('/race', clock.now(), 300);
    const counts = await Promise.all([worker(clock).runDue(), worker(clock).runDue(), worker(clock).runDue()]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(300);
    const got = receiver.on('/race');
    expect(got).toHaveLength(300);
    expect(new Set(got.map((delivery) => delivery.headers['x-service-event-id'])).size).toBe(300);
  });

  it("one tenant's receiver that never answers holds at most its cap of the worker's slots: another tenant's deliveries go out meanwhile", async () => {
    // A receiver that takes every request and never answers (until the sender's 5 s timeout ends each attempt).
    const held: IncomingMessage[] = [];
    const silent = createServer({ key: certificates.key, cert: certificates.cert }, (request) => held.push(request));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentUrl = `https://localhost:${(silent.address() as AddressInfo).port}/never`;
    let running: DeliveryWorker | undefined;
    try {
      const slow = { ...tenant, organizationId: `${tenant.organizationId}_slow` };
      await registry.create(slow, { url: silentUrl, events: ['offramp.completed'] });
      const at = new Date();
      for (let i = 0; i < 12; i++) {
        const eventId = crypto.randomUUID();
        const body = JSON.stringify({
          event: 'offramp.completed',
          timestamp: at.toISOString(),
          data: { transactionId: `txn_slow_${i}`, metadata: { eventId } },
        });
        await withTransaction(pool, (tx) =>
          store.recordEvent(
            tx,
            {
              eventId,
              type: 'offramp.completed',
              body,
              transactionId: null,
              organizationId: slow.organizationId,
              environment: 'test',
              generation: 0,
              keyId: null,
              callbackUrl: null,
            },
            at,
          ),
        );
      }
      // The other tenant's come due after all of the slow one's.
      await register('/fair');
      await event('/fair', new Date(at.getTime() + 1), 3);
      running = new DeliveryWorker({ ...workerOptions(systemClock), concurrency: 6, perTenantConcurrency: 3 });
      running.start();
      await eventually(
        async () => receiver.on('/fair').length,
        (n) => n === 3,
        20_000,
        20,
      );
      // Sent while the slow tenant's three attempts still hang, none of them over: the other slots were free for it.
      expect(held.length).toBeLessThanOrEqual(3);
      const finished = await pool.query(
        `select count(*)::int as n from notifier.delivery_attempts a join notifier.deliveries d on d.id = a.delivery_id where d.organization_id = $1`,
        [slow.organizationId],
      );
      expect(finished.rows[0].n).toBe(0);
    } finally {
      await running?.stop();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 30_000);

  it('a delivery leased by a worker that died is sent again once its lease has run out, not before', async () => {
    await register('/orphan');
    const start = Date.now();
    const clock = new HandClock(start);
    await event('/orphan', clock.now());
    // A replica claims it and dies before sending.
    expect(await store.claim(clock.now(), new Date(start + 45_000), 10)).toHaveLength(1);
    clock.set(start + 44_999);
    expect(await worker(clock).runDue()).toBe(0);
    clock.set(start + 45_000);
    expect(await worker(clock).runDue()).toBe(1);
    expect(receiver.on('/orphan')).toHaveLength(1);
  });

  it('a webhook deleted while an event for it is being recorded gets nothing: the delete waits, then cancels the new delivery', async () => {
    const webhookId = await register('/racing-delete');
    const client = await pool.connect();
    try {
      await client.query('begin');
      const eventId = crypto.randomUUID();
      const body = JSON.stringify({
        event: 'offramp.completed',
        timestamp: new Date().toISOString(),
        data: { transactionId: 'txn_race', metadata: { eventId } },
      });
      const at = new Date();
      expect(
        await store.recordEvent(
          client,
          {
            eventId,
            type: 'offramp.completed',
            body,
            transactionId: null,
            organizationId: tenant.organizationId,
            environment: 'test',
            generation: 0,
            keyId: null,
            callbackUrl: null,
          },
          at,
        ),
      ).toBe(1);
      // The consumer's transaction is still open when the integrator deletes the webhook.
      let deleted = false;
      const deleting = registry.delete({ ...tenant }, webhookId).then(() => (deleted = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(deleted).toBe(false);
      await client.query('commit');
      await deleting;
    } finally {
      client.release();
    }
    const rows = await pool.query(`select status from notifier.deliveries where webhook_id = $1`, [webhookId]);
    expect(rows.rows).toEqual([{ status: 'cancelled' }]);
    expect(await worker(new HandClock(Date.now() + 3_600_000)).runDue()).toBe(0);
    expect(receiver.on('/racing-delete')).toHaveLength(0);
  });
});
