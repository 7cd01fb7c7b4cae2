import { execFileSync } from 'child_process';
import { Pool } from 'pg';
import { makeNuban } from '@ramp/banking';
import {
  ApiClient,
  createKey,
  eventually,
  expectError,
  makeTestCertificates,
  startServices,
  stopAll,
  WebhookReceiver,
  type ServiceProcess,
  type TestKey,
} from '@ramp/testing';

const GTB = makeNuban('058', '012345678');
const REJECTING = makeNuban('058', '888888888');

describe('webhooks - registration, signed deliveries and callbacks to a real HTTPS receiver', () => {
  const certificates = makeTestCertificates();
  /** Every secret an integrator stored, by receiver path. */
  const secrets = new Map<string, string>();
  const failing = new Set<string>();
  const receiver = new WebhookReceiver(certificates, {
    secretFor: (path) => secrets.get(path.split('?')[0]!),
    statusFor: (path) => (failing.has(path) ? 503 : 200),
  });
  let services: Map<string, ServiceProcess>;
  let key: TestKey;
  let api: ApiClient;
  let pool: Pool;

  beforeAll(async () => {
    await receiver.start();
    services = await startServices(['quote', 'ledger', 'ramp', 'notifier', 'gateway'], {
      SANDBOX_STEP_DELAY_MS: '20',
      WEBHOOK_ALLOW_HOSTS: 'localhost',
      WEBHOOK_CA_FILE: certificates.caFile,
    });
    key = await createKey({ plan: 'enterprise' });
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, key.apiKey);
    pool = new Pool({ connectionString: process.env.DATABASE_URL });
  });

  afterAll(async () => {
    await pool.end();
    await stopAll(services.values());
    await receiver.stop();
  });

  const register = async (path: string, events: string[], client = api) => {
    const response = await client.post('/webhooks', { url: receiver.url(path), events, description: `hook ${path}` });
    expect(response.status).toBe(201);
    secrets.set(path, response.body.data.secret);
    return response.body.data;
  };

  const offramp = async (client: ApiClient, accountNumber: string, callbackPath?: string) => {
    const wallet = await client.post('/wallets', { chain: 'base' });
    await client.post(`/sandbox/wallets/${wallet.body.data.walletId}/fund`, { tokenSymbol: 'USDC', amount: '100' });
    const quote = await client.post('/offramp/quote', { amount: '40', tokenSymbol: 'USDC', bankCode: '058', accountNumber, chain: 'base' });
    const started = await client.post('/offramp/initiate', {
      quoteId: quote.body.data.quoteId,
      walletId: wallet.body.data.walletId,
      reference: `ref-${callbackPath ?? 'none'}`,
      ...(callbackPath ? { callbackUrl: receiver.url(callbackPath) } : {}),
    });
    expect(started.status).toBe(201);
    return started.body.data.transactionId as string;
  };

  describe('registration', () => {
    it('returns the whsec_ secret once; lists without secrets; deletes with { id, deleted: true }', async () => {
      const created = await api.post('/webhooks', { url: receiver.url('/reg'), events: ['offramp.completed', '*'], description: 'payouts' });
      expect(created.status).toBe(201);
      expect(created.body.data).toEqual({
        id: expect.stringMatching(/^wh_[0-9A-Z]{26}$/),
        url: receiver.url('/reg'),
        events: ['offramp.completed', '*'],
        isActive: true,
        description: 'payouts',
        createdAt: expect.any(String),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      });
      const listed = await api.get('/webhooks');
      expect(listed.status).toBe(200);
      const mine = listed.body.data.find((hook: any) => hook.id === created.body.data.id);
      expect(mine).toEqual({ ...created.body.data, secret: undefined });
      expect(JSON.stringify(listed.body)).not.toContain('whsec_');

      const deleted = await api.delete(`/webhooks/${created.body.data.id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ success: true, data: { id: created.body.data.id, deleted: true } });
      expectError(await api.delete(`/webhooks/${created.body.data.id}`), 404, 'NOT_FOUND');
    });

    it('replays an idempotent registration with its secret, which is stored sealed', async () => {
      const headers = { 'idempotency-key': `wh-${Date.now()}` };
      const body = { url: receiver.url('/idem'), events: ['*'] };
      const first = await api.post('/webhooks', body, headers);
      const again = await api.post('/webhooks', body, headers);
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      secrets.set('/idem', first.body.data.secret);
      const stored = await pool.query(`select response_body::text as body from gateway.idempotency_keys where response_body::text like $1`, [
        `%${first.body.data.id}%`,
      ]);
      expect(stored.rows).toHaveLength(1);
      expect(stored.rows[0].body).not.toContain(first.body.data.secret);
      expect(stored.rows[0].body).not.toContain('whsec_');
      await api.delete(`/webhooks/${first.body.data.id}`);
    });

    it.each([
      ['http://localhost/hook', 'must use https://'],
      ['https://10.1.2.3/hook', 'must not target a private address (10.1.2.3)'],
      ['https://192.168.0.10/hook', 'must not target a private address (192.168.0.10)'],
      ['https://169.254.169.254/latest/meta-data', 'must not target a cloud metadata address (169.254.169.254)'],
      ['https://[::ffff:169.254.169.254]/', 'must not target a cloud metadata address (::ffff:a9fe:a9fe)'],
      ['https://metadata.google.internal/', 'must not target a cloud metadata or internal host name (metadata.google.internal)'],
      ['https://127.0.0.1/hook', 'must not target a loopback address (127.0.0.1)'],
      ['https://2130706433/hook', 'must not target a loopback address (127.0.0.1)'],
      ['https://[::1]/hook', 'must not target a loopback address (::1)'],
      ['https://100.64.0.1/hook', 'must not target a carrier-grade NAT address (100.64.0.1)'],
      ['https://0.0.0.0/hook', 'must not target an unspecified ("this network") address (0.0.0.0)'],
      ['not a url', 'must be an absolute https:// URL'],
    ])('refuses %s', async (url, message) => {
      const refused = await api.post('/webhooks', { url, events: ['*'] });
      expectError(refused, 400, 'INVALID_REQUEST', 'url', 'WEBHOOK_TARGET_REFUSED');
      expect(refused.body.error.message.startsWith(`url: ${message}`)).toBe(true);
    });

    it('names WEBHOOK_ALLOW_HOSTS when it refuses a local host in development, and not for a metadata address', async () => {
      const local = await api.post('/webhooks', { url: 'https://127.0.0.1:4443/hook', events: ['*'] });
      expect(local.body.error.message).toBe(
        'url: must not target a loopback address (127.0.0.1); to reach 127.0.0.1 while testing locally, start the platform with WEBHOOK_ALLOW_HOSTS=127.0.0.1',
      );
      const metadata = await api.post('/webhooks', { url: 'https://169.254.169.254/latest/meta-data', events: ['*'] });
      expect(metadata.body.error.message).not.toContain('WEBHOOK_ALLOW_HOSTS');
    });

    it.each([
      [['offramp.done'], 'events', '[0] "offramp.done" is not an event'],
      [[], 'events', 'must name at least one event'],
      ['*', 'events', 'must be an array of strings'],
      [[42], 'events', 'must contain only strings'],
    ])('refuses events %j', async (events, field, message) => {
      const refused = await api.post('/webhooks', { url: receiver.url('/x'), events });
      expectError(refused, 400, 'INVALID_REQUEST', field);
      expect(refused.body.error.message).toContain(message);
    });

    it('refuses the eleventh webhook of a tenant, also under concurrent requests', async () => {
      const other = await createKey();
      const client = api.withKey(other.apiKey);
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => client.post('/webhooks', { url: receiver.url(`/many/${i}`), events: ['*'] })));
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(10);
      for (const refused of answers.filter((answer) => answer.status !== 201)) {
        expectError(refused, 400, 'INVALID_REQUEST', 'url');
        expect(refused.body.error.message).toContain('at most 10 webhooks');
      }
      expect((await client.get('/webhooks')).body.data).toHaveLength(10);
    });

    it("answers NOT_FOUND for an unknown, malformed or another tenant's webhook id, on every route", async () => {
      const mine = await register('/mine', ['*']);
      const stranger = api.withKey((await createKey()).apiKey);
      for (const id of [mine.id, 'wh_00000000000000000000000000', '../etc/passwd']) {
        const target = encodeURIComponent(id);
        expectError(await stranger.delete(`/webhooks/${target}`), 404, 'NOT_FOUND');
        expectError(await stranger.get(`/webhooks/${target}/deliveries`), 404, 'NOT_FOUND');
        expectError(await stranger.post(`/webhooks/${target}/test`, {}), 404, 'NOT_FOUND');
        expectError(await stranger.post(`/webhooks/${target}/deliveries/dlv_00000000000000000000000000/retry`, {}), 404, 'NOT_FOUND');
      }
      expect((await api.get('/webhooks')).body.data.map((hook: any) => hook.id)).toContain(mine.id);
    });
  });

  describe('deliveries', () => {
    let tenant: ApiClient;
    let everything: any;
    let payouts: any;
    let swaps: any;

    beforeAll(async () => {
      const own = await createKey();
      tenant = api.withKey(own.apiKey);
      everything = await register('/all', ['*'], tenant);
      payouts = await register('/payouts', ['offramp.completed', 'offramp.failed'], tenant);
      swaps = await register('/swaps', ['swap.completed'], tenant);
      secrets.set('/callback', own.apiSecret);
    });

    it('an off-ramp that completes reaches each matching webhook once and its callback URL once, each correctly signed', async () => {
      const transactionId = await offramp(tenant, GTB, '/callback');
      await eventually(
        async () => receiver.received.filter((delivery) => delivery.body?.data?.transactionId === transactionId),
        (got) => got.length >= 3,
        30_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      const got = receiver.received.filter((delivery) => delivery.body?.data?.transactionId === transactionId);
      expect(got.map((delivery) => delivery.path).sort()).toEqual(['/all', '/callback', '/payouts']);
      for (const delivery of got) {
        expect(delivery.signatureValid).toBe(true);
        expect(delivery.headers).toMatchObject({
          'content-type': 'application/json',
          'x-service-event-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
          'x-service-delivery-attempt': '1',
          'webhook-id': expect.stringMatching(/^dlv_/),
          'webhook-timestamp': expect.stringMatching(/^\d{10}$/),
          'webhook-signature': expect.stringMatching(/^v1,/),
        });
        expect(delivery.body).toEqual({
          event: 'offramp.completed',
          timestamp: expect.any(String),
          data: {
            transactionId,
            reference: 'ref-/callback',
            type: 'offramp',
            status: 'completed',
            amount: '40',
            tokenSymbol: 'USDC',
            chain: 'base',
            transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
            fiatAmount: expect.any(String),
            fiatCurrency: 'NGN',
            payoutAmount: expect.stringMatching(/^\d+\.\d{2}$/),
            walletId: expect.stringMatching(/^wal_/),
            metadata: { eventId: delivery.headers['x-service-event-id'] },
          },
        });
      }
      // One event, so one body: the same bytes to every target, and the same bytes internal teams see on JetStream.
      expect(new Set(got.map((delivery) => delivery.rawBody)).size).toBe(1);
      expect(got.find((delivery) => delivery.path === '/swaps')).toBeUndefined();
      // The callback is signed with the initiating key's API secret, not with a webhook's.
      const callback = got.find((delivery) => delivery.path === '/callback')!;
      expect(callback.headers['x-service-signature']).not.toBe(got.find((delivery) => delivery.path === '/all')!.headers['x-service-signature']);

      const listed = await tenant.get(`/webhooks/${payouts.id}/deliveries`);
      expect(listed.status).toBe(200);
      expect(listed.body.meta).toMatchObject({ page: 1, limit: 20, total: 1 });
      expect(listed.body.data[0]).toMatchObject({
        webhookId: payouts.id,
        event: 'offramp.completed',
        transactionId,
        status: 'succeeded',
        attempts: [{ attempt: 1, statusCode: 200, durationMs: expect.any(Number), at: expect.any(String) }],
      });
      // A webhook subscribed only to swap.completed was given no delivery of it at all.
      expect((await tenant.get(`/webhooks/${swaps.id}/deliveries`)).body.meta.total).toBe(0);
    });

    it('an off-ramp whose payout is rejected gives offramp.failed with its errorMessage', async () => {
      const transactionId = await offramp(tenant, REJECTING);
      const got = await eventually(
        async () => receiver.received.filter((delivery) => delivery.body?.data?.transactionId === transactionId),
        (deliveries) => deliveries.length >= 2,
        30_000,
      );
      expect(got.map((delivery) => delivery.path).sort()).toEqual(['/all', '/payouts']);
      for (const delivery of got) {
        expect(delivery.signatureValid).toBe(true);
        expect(delivery.body).toMatchObject({ event: 'offramp.failed', data: { transactionId, status: 'failed', errorMessage: expect.any(String) } });
      }
    });

    it('sends a signed test event; a failed attempt is listed with its status and next retry, and can be resent by hand', async () => {
      const flaky = await register('/flaky', ['swap.failed'], tenant);
      failing.add('/flaky');
      const test = await tenant.post(`/webhooks/${flaky.id}/test`, {});
      expect(test.status).toBe(201);
      expect(test.body.data).toMatchObject({ webhookId: flaky.id, event: 'webhook.test', status: 'pending', attempts: [] });
      const deliveryId = test.body.data.id;
      const failed = await eventually(
        async () => (await tenant.get(`/webhooks/${flaky.id}/deliveries`)).body.data[0],
        (delivery) => delivery.attempts.length === 1,
      );
      expect(failed).toMatchObject({ id: deliveryId, status: 'pending', attempts: [{ attempt: 1, statusCode: 503, error: 'HTTP 503: not now' }] });
      const sentAt = Date.parse(failed.attempts[0].at);
      expect(Date.parse(failed.nextAttemptAt) - sentAt).toBeGreaterThanOrEqual(60_000);
      expect(Date.parse(failed.nextAttemptAt) - sentAt).toBeLessThan(62_000);
      const first = receiver.on('/flaky')[0]!;
      expect(first.signatureValid).toBe(true);
      expect(first.body).toMatchObject({ event: 'webhook.test', data: { webhookId: flaky.id, metadata: { test: true } } });

      failing.delete('/flaky');
      const resent = await tenant.post(`/webhooks/${flaky.id}/deliveries/${deliveryId}/retry`, {});
      expect(resent.status).toBe(200);
      const succeeded = await eventually(
        async () => (await tenant.get(`/webhooks/${flaky.id}/deliveries?status=succeeded`)).body.data,
        (deliveries) => deliveries.length === 1,
      );
      expect(succeeded[0].attempts.map((attempt: any) => attempt.statusCode)).toEqual([503, 200]);
      const second = receiver.on('/flaky')[1]!;
      expect(second.headers['x-service-delivery-attempt']).toBe('2');
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(second.rawBody).toBe(first.rawBody);
    });

    it('a deleted webhook receives nothing more, and its pending deliveries are cancelled', async () => {
      const doomed = await register('/doomed', ['*'], tenant);
      failing.add('/doomed');
      const test = await tenant.post(`/webhooks/${doomed.id}/test`, {});
      await eventually(
        async () => receiver.on('/doomed').length,
        (count) => count === 1,
      );
      expect((await tenant.delete(`/webhooks/${doomed.id}`)).status).toBe(200);
      const row = await pool.query(`select status from notifier.deliveries where id = $1`, [test.body.data.id]);
      expect(row.rows[0].status).toBe('cancelled');
      const transactionId = await offramp(tenant, GTB);
      await eventually(
        async () => receiver.on('/all').filter((d) => d.body?.data?.transactionId === transactionId).length,
        (count) => count === 1,
        30_000,
      );
      expect(receiver.on('/doomed')).toHaveLength(1);
    });

    it('a database dump holds no plaintext secret: webhook secrets and API secrets are sealed', async () => {
      const dump = execFileSync('pg_dump', ['--data-only', '--schema=notifier', '--schema=gateway', process.env.DATABASE_URL!], {
        maxBuffer: 256 * 1024 * 1024,
      }).toString();
      expect(dump).toContain(everything.id);
      expect(dump).toContain(key.keyId);
      for (const secret of [...secrets.values(), key.apiSecret]) {
        expect(dump).not.toContain(secret);
        expect(dump).not.toContain(secret.replace(/^whsec_/, ''));
      }
      expect(dump).not.toMatch(/whsec_|service_secret_/);
    });
  });
});
