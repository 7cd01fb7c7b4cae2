import { randomBytes } from 'crypto';
import {
  ApiClient,
  createKey,
  expectError,
  freePort,
  keysCommand,
  rawRequest,
  startServices,
  stopAll,
  ServiceProcess,
  type ApiResponse,
  type TestKey,
} from '@ramp/testing';
import { DEVELOPMENT_MNEMONIC } from '@ramp/evm';
import { SecretBox } from '@ramp/keys';

/** The X-RateLimit-* headers of a response, by their last word. */
function rateLimitHeaders(response: ApiResponse): Record<string, string | null> {
  return Object.fromEntries(['limit', 'remaining', 'reset', 'policy'].map((name) => [name, response.headers.get(`x-ratelimit-${name}`)]));
}

describe('gateway edge - authentication, envelope, limits', () => {
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let key: TestKey;

  beforeAll(async () => {
    services = await startServices(['quote', 'gateway']);
    api = new ApiClient(`${services.get('gateway')!.url}/v1`);
    key = await createKey({ plan: 'enterprise' });
  });

  afterAll(async () => {
    await stopAll(services.values());
  });

  it('refuses a request without a key, with an unknown key, and with a revoked key on the very next request', async () => {
    expectError(await api.get('/transfer/chains'), 401, 'UNAUTHORIZED');
    expectError(await api.withKey(`service_test_${randomBytes(24).toString('base64url')}`).get('/transfer/chains'), 401, 'UNAUTHORIZED');

    const doomed = await createKey({ plan: 'enterprise' });
    expect((await api.withKey(doomed.apiKey).get('/transfer/chains')).status).toBe(200);
    const revoked = await keysCommand(['revoke', doomed.keyId]);
    expect(revoked.code).toBe(0);
    expectError(await api.withKey(doomed.apiKey).get('/transfer/chains'), 401, 'UNAUTHORIZED');
  });

  it('answers every failure with the envelope, never a stack trace', async () => {
    const client = api.withKey(key.apiKey);
    const unknownRoute = await client.get('/no/such/route');
    expectError(unknownRoute, 404, 'NOT_FOUND');
    expect(unknownRoute.body.error.message).toContain('/v1/no/such/route');
    expectError(await client.raw('DELETE', '/offramp/quote', undefined, {}), 404, 'NOT_FOUND');
    expectError(await client.raw('POST', '/offramp/quote', '{"amount": "1",', { 'content-type': 'application/json' }), 400, 'INVALID_REQUEST', 'body');
    expectError(
      await client.raw('POST', '/offramp/quote', 'amount=1', { 'content-type': 'application/x-www-form-urlencoded' }),
      400,
      'INVALID_REQUEST',
      'body',
    );
    expectError(await client.raw('POST', '/offramp/quote', 'amount 1', { 'content-type': 'text/plain' }), 400, 'INVALID_REQUEST', 'body');
    expectError(await client.raw('POST', '/offramp/quote', '[1,2]', { 'content-type': 'application/json' }), 400, 'INVALID_REQUEST', 'body');
    expectError(await client.raw('POST', '/offramp/quote', '{"__proto__": {"x": 1}}', { 'content-type': 'application/json' }), 400, 'INVALID_REQUEST');
    const huge = JSON.stringify({ amount: '1', padding: 'x'.repeat(200_000) });
    const oversized = await client.raw('POST', '/offramp/quote', huge, { 'content-type': 'application/json' });
    expectError(oversized, 413, 'INVALID_REQUEST', 'body');
    expectError(await client.post('/offramp/quote', { amount: '1', surprise: true }), 400, 'INVALID_REQUEST');
  });

  it('refuses what the fuzz test found slipping through: duplicate keys, deep nesting, odd names, undocumented query', async () => {
    const client = api.withKey(key.apiKey);
    const json = { 'content-type': 'application/json' };
    const quote = '"amount":"100","tokenSymbol":"USDC","chain":"base"';
    const duplicate = await client.raw('POST', '/onramp/quote', `{${quote},"amount":"1000"}`, json);
    expectError(duplicate, 400, 'INVALID_REQUEST', 'body');
    expect(duplicate.body.error.message).toBe('body: has the key "amount" twice in one object');
    expectError(await client.raw('POST', '/onramp/quote', `{${quote},"x":${'['.repeat(5000)}${']'.repeat(5000)}}`, json), 400, 'INVALID_REQUEST', 'body');
    // class-transformer drops `prototype` before the whitelist looks: it is refused on the body as sent.
    expectError(await client.raw('POST', '/onramp/quote', `{${quote},"prototype":1}`, json), 400, 'INVALID_REQUEST', 'prototype');
    expectError(await client.get('/transfer/chains?admin=1'), 400, 'INVALID_REQUEST', 'admin');
    expectError(await client.get('/wallets?limit=5&limit=6'), 400, 'INVALID_REQUEST', 'limit');
    // Text PostgreSQL cannot store is refused at the edge, in a body, a query or a path, rather than failing in a service.
    expectError(await client.post('/wallets', { chain: 'base', label: 'a\u0000b' }), 400, 'INVALID_REQUEST', 'label');
    expectError(await client.get('/transactions?walletId=%00'), 400, 'INVALID_REQUEST', 'walletId');
    expectError(await client.get('/wallets/wal_%00'), 400, 'INVALID_REQUEST', 'walletId');
  });

  it('answers with the envelope even what Fastify and Node refuse before the edge runs', async () => {
    const origin = services.get('gateway')!.url;
    const headers: [string, string][] = [['x-api-key', key.apiKey]];
    const malformedEscape = await rawRequest(origin, { method: 'GET', path: '/v1/offramp/%zz', headers });
    expect([malformedEscape.status, malformedEscape.body?.error]).toEqual([
      400,
      { code: 'INVALID_REQUEST', reason: 'MALFORMED_REQUEST', field: 'path', message: 'path: is not a valid URL (a malformed %-escape)' },
    ]);
    expect(malformedEscape.headers['x-request-id']).toMatch(/^req_/);
    const longId = await rawRequest(origin, { method: 'GET', path: `/v1/offramp/txn_${'1'.repeat(200)}`, headers });
    expect([longId.status, longId.body?.error?.field]).toEqual([400, 'path']);
    const hugeHeader = await rawRequest(origin, { method: 'GET', path: '/v1/transfer/chains', headers: [...headers, ['x-padding', 'p'.repeat(20_000)]] });
    expect([hugeHeader.status, hugeHeader.body?.error]).toEqual([
      431,
      { code: 'INVALID_REQUEST', reason: 'MALFORMED_REQUEST', field: 'headers', message: 'headers: are larger than the 16 KiB accepted' },
    ]);
    const noHost = await rawRequest(origin, { method: 'GET', path: '/v1/transfer/chains', headers: [...headers, ['host', '']] });
    expect([noHost.status, noHost.body?.error?.field]).toEqual([400, 'Host']);
  });

  it('echoes a client request id and makes one up otherwise, on successes and errors alike', async () => {
    const echoed = await api.withKey(key.apiKey).get('/transfer/chains', { 'x-request-id': 'order-42_retry.1' });
    expect(echoed.headers.get('x-request-id')).toBe('order-42_retry.1');
    const made = await api.get('/transfer/chains');
    expect(made.headers.get('x-request-id')).toMatch(/^req_[0-9a-f-]{36}$/);
    const refused = await api.get('/transfer/chains', { 'x-request-id': 'bad id with spaces' });
    expect(refused.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('puts the rate-limit headers on every response, including errors and unknown routes', async () => {
    for (const response of [
      await api.withKey(key.apiKey).get('/transfer/chains'),
      await api.withKey(key.apiKey).get('/missing'),
      await api.get('/transfer/chains'),
    ]) {
      expect(Number(response.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
      expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(response.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
      expect(response.headers.get('x-ratelimit-policy')).toMatch(/^\d+;w=60, \d+;w=1$/);
    }
  });

  it("limits a free key to its burst of 10 per second; a refusal's headers describe the burst, a pass's the tighter limit", async () => {
    const free = await createKey({ plan: 'free' });
    const client = api.withKey(free.apiKey);
    // The burst refills continuously, one request every 100 ms: a slow machine spreading the 30 requests' checks over
    // more than 100 ms lets one more through per 100 ms, and no more than that.
    const started = performance.now();
    const responses = await Promise.all(Array.from({ length: 30 }, () => client.get('/transfer/chains')));
    const elapsedMs = performance.now() - started;
    const passed = responses.filter((response) => response.status === 200);
    const limited = responses.filter((response) => response.status === 429);
    expect(passed.length + limited.length).toBe(30);
    expect(passed.length).toBeGreaterThanOrEqual(10);
    expect(passed.length).toBeLessThanOrEqual(10 + Math.ceil(elapsedMs / 100));
    expect(limited.length).toBeGreaterThan(0);
    expectError(limited[0]!, 429, 'RATE_LIMITED');
    expect(limited[0]!.body.error.message).toMatch(/retry in \d+ seconds?/);

    // Refused by the burst (10/s) with at least 30 of the minute's 60 still left: the headers describe the burst.
    for (const response of limited) {
      const retryAfter = response.headers.get('retry-after');
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(rateLimitHeaders(response)).toEqual({ limit: '10', remaining: '0', reset: retryAfter, policy: '60;w=60, 10;w=1' });
    }
    // Passed with fewer left of the burst (9 down to 0, then 0 for each refill) than of the minute (59 down to 30):
    // the burst, full again within a second.
    const headers = passed.map(rateLimitHeaders);
    expect([...new Set(headers.map((h) => Number(h['remaining'])))].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(headers.every((h) => h['limit'] === '10' && h['reset'] === '1' && h['policy'] === '60;w=60, 10;w=1')).toBe(true);
  });

  it('shows the per-minute limit when it is the tighter, and when it refuses', async () => {
    // 5 a minute, 10 a second: after one request 4 are left of the minute and 9 of the burst, so the minute shows;
    // the 6th request is refused by the minute, for about the 12 seconds one request costs.
    const client = api.withKey((await createKey({ plan: 'enterprise', extra: ['--rate-per-minute', '5', '--burst', '10'] })).apiKey);
    const first = await client.get('/transfer/chains');
    expect([first.status, rateLimitHeaders(first)]).toEqual([200, { limit: '5', remaining: '4', reset: '12', policy: '5;w=60, 10;w=1' }]);
    for (let i = 0; i < 4; i++) expect((await client.get('/transfer/chains')).status).toBe(200);
    const refused = await client.get('/transfer/chains');
    expectError(refused, 429, 'RATE_LIMITED');
    const retryAfter = refused.headers.get('retry-after');
    expect(Number(retryAfter)).toBeGreaterThan(10);
    expect(rateLimitHeaders(refused)).toEqual({ limit: '5', remaining: '0', reset: retryAfter, policy: '5;w=60, 10;w=1' });
  });

  it('refuses a key used from an address outside its allowlist', async () => {
    const restricted = await createKey({ plan: 'enterprise', extra: ['--allow-ip', '203.0.113.0/24'] });
    const response = await api.withKey(restricted.apiKey).get('/transfer/chains');
    expectError(response, 403, 'FORBIDDEN');
    expect(response.body.error.message).toContain('127.0.0.1');
    const local = await createKey({ plan: 'enterprise', extra: ['--allow-ip', '127.0.0.1', '--allow-ip', '::1'] });
    expect((await api.withKey(local.apiKey).get('/transfer/chains')).status).toBe(200);
  });

  it('refuses live keys on provider routes until live mode is enabled, but lets them read the chains', async () => {
    const live = await createKey({ env: 'live', plan: 'enterprise' });
    expect(live.apiKey).toMatch(/^service_live_/);
    const quote = await api.withKey(live.apiKey).post('/onramp/quote', { amount: '5000', tokenSymbol: 'CNGN', chain: 'base' });
    expectError(quote, 403, 'FORBIDDEN');
    expect(quote.body.error.message).toContain('test key');
    expect((await api.withKey(live.apiKey).get('/transfer/chains')).status).toBe(200);
    // Bank verification is the quote service's to refuse: no bank partner is configured here (PAYSTACK_SECRET_KEY).
    const banks = await api.withKey(live.apiKey).get('/onramp/banks');
    expectError(banks, 403, 'FORBIDDEN');
    expect(banks.body.error).toMatchObject({ reason: 'LIVE_MODE_DISABLED', message: expect.stringContaining('bank partner') });
  });
});

describe('gateway edge - shared limits, HTTPS and unavailable services', () => {
  it("two gateway replicas share one key's limit exactly", async () => {
    const services = await startServices(['quote', 'gateway']);
    const second = await new ServiceProcess('gateway', await freePort(), {}).start();
    try {
      const free = await createKey({ plan: 'free' });
      const clients = [services.get('gateway')!, second].map((gateway) => new ApiClient(`${gateway.url}/v1`, free.apiKey));
      const started = Date.now();
      const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => clients[i % 2]!.get('/transfer/chains')));
      const elapsedMs = Date.now() - started;
      // The burst of 10 a second is one request per 100 ms (GCRA): a batch that took longer than that to arrive earned
      // one more per 100 ms, whichever replica took it. Two limits of their own would have allowed 20.
      const allowed = responses.filter((response) => response.status === 200).length;
      expect(allowed).toBeGreaterThanOrEqual(10);
      expect(allowed).toBeLessThanOrEqual(10 + Math.floor(elapsedMs / 100));
      expect(allowed).toBeLessThan(20);
      expect(responses.filter((response) => response.status === 429)).toHaveLength(30 - allowed);
    } finally {
      await stopAll([...services.values(), second]);
    }
  });

  it("limits requests without a valid key per client address, apart from the keys' own limits", async () => {
    // Through a trusted proxy, so that this test's client has an address of its own in the shared Redis.
    const services = await startServices(['quote', 'gateway'], { ANONYMOUS_RATE_PER_MINUTE: '12', TRUSTED_PROXIES: '127.0.0.1,::1' });
    try {
      const client = { 'x-forwarded-for': `203.0.113.${Math.floor(Math.random() * 250) + 1}, 198.51.100.${Date.now() % 250}`, 'x-forwarded-proto': 'https' };
      const other = { ...client, 'x-forwarded-for': `192.0.2.${(Date.now() % 250) + 1}` };
      const anonymous = new ApiClient(`${services.get('gateway')!.url}/v1`);
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await anonymous.get('/transfer/chains', client)).status);
      // The burst is a sixth of the per-minute limit: 2 requests, then 429 instead of 401.
      expect(statuses).toEqual([401, 401, 429, 429, 429]);
      const limited = await anonymous.get('/transfer/chains', client);
      expectError(limited, 429, 'RATE_LIMITED');
      // Refused by the burst of 2, not by the minute's 12: the headers describe the burst.
      expect(limited.headers.get('x-ratelimit-limit')).toBe('2');
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(limited.headers.get('x-ratelimit-reset')).toBe(limited.headers.get('retry-after'));
      expect(limited.headers.get('x-ratelimit-policy')).toBe('12;w=60, 2;w=1');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);

      const key = await createKey();
      expect((await anonymous.withKey(key.apiKey).get('/transfer/chains', client)).status).toBe(200);
      expectError(await anonymous.get('/transfer/chains', other), 401, 'UNAUTHORIZED');
    } finally {
      await stopAll(services.values());
    }
  });

  it("a key used from outside its allowlist never spends its owner's budget: the refusing address's limit counts it", async () => {
    // Through a trusted proxy, so that the owner and the one who took the key have addresses of their own.
    const services = await startServices(['quote', 'gateway'], { ANONYMOUS_RATE_PER_MINUTE: '12', TRUSTED_PROXIES: '127.0.0.1,::1' });
    try {
      const owner = `198.51.100.${(Date.now() % 250) + 1}`;
      const taker = `203.0.113.${(Date.now() % 250) + 1}`;
      const from = (address: string) => ({ 'x-forwarded-for': address, 'x-forwarded-proto': 'https' });
      const gateway = `${services.get('gateway')!.url}/v1`;
      const restricted = new ApiClient(gateway, (await createKey({ extra: ['--allow-ip', owner] })).apiKey);
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await restricted.get('/transfer/chains', from(taker))).status);
      // The taker's address has a burst of 2 (12 a minute): refused twice for the address, then limited by it.
      expect(statuses).toEqual([403, 403, 429, 429, 429, 429]);
      const limited = await restricted.get('/transfer/chains', from(taker));
      expect(limited.headers.get('x-ratelimit-policy')).toBe('12;w=60, 2;w=1');
      // The owner's budget is whole: the same headers as a key of the same plan used once.
      const owned = await restricted.get('/transfer/chains', from(owner));
      expect(owned.status).toBe(200);
      const control = await new ApiClient(gateway, (await createKey({ extra: ['--allow-ip', owner] })).apiKey).get('/transfer/chains', from(owner));
      expect(rateLimitHeaders(owned)).toEqual(rateLimitHeaders(control));
    } finally {
      await stopAll(services.values());
    }
  });

  it('looks up the keys its cache does not hold within a limit per client address, so that made-up keys stop before the database', async () => {
    const services = await startServices(['quote', 'gateway'], {
      KEY_LOOKUPS_PER_MINUTE: '12',
      ANONYMOUS_RATE_PER_MINUTE: '600',
      TRUSTED_PROXIES: '127.0.0.1,::1',
    });
    try {
      const from = (address: string) => ({ 'x-forwarded-for': address, 'x-forwarded-proto': 'https' });
      const guesser = from(`192.0.2.${(Date.now() % 250) + 1}`);
      const gateway = `${services.get('gateway')!.url}/v1`;
      const madeUp = () => new ApiClient(gateway, `service_test_${randomBytes(24).toString('hex')}`);
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await madeUp().get('/transfer/chains', guesser)).status);
      // A burst of 2 lookups (12 a minute), far below the address's 600 requests a minute: the third made-up key is
      // refused before it is looked up.
      expect(statuses).toEqual([401, 401, 429, 429, 429]);
      const refused = await madeUp().get('/transfer/chains', guesser);
      expectError(refused, 429, 'RATE_LIMITED');
      expect(refused.headers.get('x-ratelimit-policy')).toBe('12;w=60, 2;w=1');
      // A key the gateway holds in its cache costs no lookup: it passes from the same address.
      const known = new ApiClient(gateway, (await createKey()).apiKey);
      expect((await known.get('/transfer/chains', from('198.51.100.200'))).status).toBe(200);
      expect((await known.get('/transfer/chains', guesser)).status).toBe(200);
      // Another address has lookups of its own.
      expectError(await madeUp().get('/transfer/chains', from('198.51.100.201')), 401, 'UNAUTHORIZED');
    } finally {
      await stopAll(services.values());
    }
  });

  it('refuses plain HTTP in production and accepts HTTPS from a trusted proxy', async () => {
    const secretsKey = randomBytes(32).toString('base64');
    // The chain service (which the quote service asks for the chains list) refuses production without its own sealing
    // key and a sealed test seed.
    const sealingKey = randomBytes(32).toString('base64');
    const testSeed = new SecretBox(sealingKey, true).seal(DEVELOPMENT_MNEMONIC);
    const env = {
      NODE_ENV: 'production',
      SECRETS_ENCRYPTION_KEY: secretsKey,
      CUSTODY_SEALING_KEY: sealingKey,
      TEST_CUSTODY_SEED: testSeed,
      TRUSTED_PROXIES: '127.0.0.1,::1',
    };
    const services = await startServices(['quote', 'gateway'], env);
    try {
      const key = await createKey();
      const api = new ApiClient(`${services.get('gateway')!.url}/v1`, key.apiKey);
      const plain = await api.get('/transfer/chains');
      expectError(plain, 403, 'FORBIDDEN');
      expect(plain.body.error.message).toContain('HTTPS');
      expect((await api.get('/transfer/chains', { 'x-forwarded-proto': 'https' })).status).toBe(200);
      // Probes and metrics answer the cluster's direct connections only: what the ingress forwards does not see them.
      const gateway = services.get('gateway')!.url;
      const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' };
      // Percent-encoded paths too, with a key: the router decodes them to the same routes.
      for (const path of ['/metrics', '/health/ready', '/health/live', '/%6Detrics', '/health/%72eady']) {
        const outside = await fetch(`${gateway}${path}`, { headers: { ...forwarded, 'x-api-key': key.apiKey } });
        expect({ path, status: outside.status, code: ((await outside.json()) as any).error?.code }).toEqual({ path, status: 404, code: 'NOT_FOUND' });
        expect({ path, status: (await fetch(`${gateway}${path}`)).status }).toEqual({ path, status: 200 });
      }
    } finally {
      await stopAll(services.values());
    }
  });

  it('keeps serving without rate limits while Redis is unreachable, and says so in readiness without failing it', async () => {
    const deadRedis = `redis://127.0.0.1:${await freePort()}`;
    const services = await startServices(['quote', 'gateway'], { REDIS_URL: deadRedis });
    try {
      const gateway = services.get('gateway')!;
      const ready = await fetch(`${gateway.url}/health/ready`);
      expect(ready.status).toBe(200);
      const health = (await ready.json()) as { status: string; checks: Record<string, string> };
      expect(health.status).toBe('degraded');
      expect(health.checks['redis']).not.toBe('ok');
      expect(health.checks['postgres']).toBe('ok');

      const free = await createKey({ plan: 'free' });
      const api = new ApiClient(`${gateway.url}/v1`, free.apiKey);
      const responses = await Promise.all(Array.from({ length: 15 }, () => api.get('/transfer/chains')));
      expect(responses.map((response) => response.status)).toEqual(Array(15).fill(200));
      expect(responses[0]!.headers.get('x-ratelimit-remaining')).toBeNull();
    } finally {
      await stopAll(services.values());
    }
  });

  it('answers SERVICE_UNAVAILABLE promptly when the quote service is stopped or hangs', async () => {
    const services = await startServices(['quote', 'gateway'], { RPC_TIMEOUT_MS: '1000' });
    try {
      const key = await createKey();
      const api = new ApiClient(`${services.get('gateway')!.url}/v1`, key.apiKey);
      expect((await api.get('/transfer/chains')).status).toBe(200);

      const quote = services.get('quote')!;
      process.kill(quote.pid!, 'SIGSTOP');
      let started = Date.now();
      const hung = await api.get('/transfer/chains');
      expectError(hung, 503, 'SERVICE_UNAVAILABLE');
      expect(Date.now() - started).toBeLessThan(4000);
      process.kill(quote.pid!, 'SIGCONT');

      await quote.stop();
      started = Date.now();
      const stopped = await api.post('/offramp/quote', { amount: '10', tokenSymbol: 'USDC', bankCode: '058', accountNumber: '0000014579', chain: 'base' });
      expectError(stopped, 503, 'SERVICE_UNAVAILABLE');
      expect(stopped.body.error.message).toContain('quote service');
      expect(Date.now() - started).toBeLessThan(4000);

      await quote.start();
      expect((await api.get('/transfer/chains')).status).toBe(200);
    } finally {
      await stopAll(services.values());
    }
  });
});
