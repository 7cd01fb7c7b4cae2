import { readFileSync } from 'fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'http';
import type { AddressInfo } from 'net';
import { join } from 'path';
import { RampClient, type RampClientOptions } from './client';
import { InvalidRequestError, InvalidResponseError, RampConnectionError, RateLimitError, ServiceUnavailableError } from './errors';
import type { RetryInfo } from './transport';
import { SDK_VERSION } from './version';

/**
 * A tiny local HTTP server that answers each request with the next scripted behaviour: the way to see the client's
 * retries against what no healthy gateway does on demand (503 with Retry-After, a dropped connection, a proxy's HTML).
 */
type Behaviour = { status: number; body?: string; headers?: Record<string, string> } | 'drop' | 'hang';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

const ok = (data: unknown): Behaviour => ({ status: 200, body: JSON.stringify({ success: true, data }) });
const failure = (status: number, code: string, message: string, field?: string, headers: Record<string, string> = {}): Behaviour => ({
  status,
  headers: { 'x-request-id': `req_${status}`, ...headers },
  body: JSON.stringify({ success: false, error: { code, message, ...(field ? { field } : {}) } }),
});

describe('client transport - retries, Idempotency-Key and typed errors against a local HTTP server', () => {
  let server: Server;
  let script: Behaviour[] = [];
  let seen: Seen[] = [];
  let retries: RetryInfo[] = [];
  const hanging: ServerResponse[] = [];
  let baseUrl = '';

  const client = (options: Partial<RampClientOptions> = {}) =>
    new RampClient({ apiKey: 'service_test_abc', baseUrl, retry: { baseDelayMs: 10, maxDelayMs: 50 }, onRetry: (info) => retries.push(info), ...options });

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString(), at: Date.now() });
        const next = script.shift() ?? { status: 500, body: 'unscripted' };
        if (next === 'drop') return request.socket.destroy();
        if (next === 'hang') return void hanging.push(response);
        response.writeHead(next.status, { 'content-type': 'application/json', ...next.headers }).end(next.body ?? '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  beforeEach(() => {
    script = [];
    seen = [];
    retries = [];
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the key, JSON, a User-Agent with the SDK version, the request id, encoded path parameters and the query', async () => {
    script = [
      ok({ id: 'txn_1' }),
      { status: 200, body: JSON.stringify({ success: true, data: [], meta: { page: 2, limit: 5, total: 0, totalPages: 0 } }) },
      ok({}),
    ];
    await client().offramp.get('txn_1/../x', { requestId: 'my-request.1' });
    const page = await client().transactions.list({ page: 2, limit: 5, status: 'completed', walletId: undefined });
    await client().sandbox.depositOfframp('txn_2');
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'GET /v1/offramp/txn_1%2F..%2Fx',
      'GET /v1/transactions?page=2&limit=5&status=completed',
      'POST /v1/sandbox/offramp/txn_2/deposit',
    ]);
    expect(seen[0]!.headers).toMatchObject({ 'x-api-key': 'service_test_abc', accept: 'application/json', 'x-request-id': 'my-request.1' });
    expect(seen[0]!.headers['user-agent']).toBe(`ramp-platform-sdk/${SDK_VERSION} node/${process.version}`);
    expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
    expect(page).toEqual({ data: [], meta: { page: 2, limit: 5, total: 0, totalPages: 0 } });
    expect(seen[2]!.headers['content-type']).toBe('application/json');
    expect(seen[2]!.body).toBe('{}');
    expect(JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8')).version).toBe(SDK_VERSION);
  });

  it("puts a fresh UUID Idempotency-Key on every POST call, or the caller's own", async () => {
    script = [ok({}), ok({}), ok({})];
    await client().wallets.create({ chain: 'base' });
    await client().wallets.create({ chain: 'base' });
    await client().wallets.create({ chain: 'base' }, { idempotencyKey: 'order-7781' });
    const keys = seen.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).not.toBe(keys[0]);
    expect(keys[2]).toBe('order-7781');
  });

  it("waits Retry-After on a 503, then succeeds, reusing the call's Idempotency-Key", async () => {
    script = [failure(503, 'SERVICE_UNAVAILABLE', 'quote service unavailable', undefined, { 'retry-after': '1' }), ok({ quoteId: 'qt_1' })];
    const quote = await client().offramp.quote({ amount: '100', tokenSymbol: 'USDC', bankCode: '058', accountNumber: '0123456789', chain: 'base' });
    expect(quote).toEqual({ quoteId: 'qt_1' });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.headers['idempotency-key']).toBe(seen[0]!.headers['idempotency-key']);
    expect(seen[1]!.body).toBe(seen[0]!.body);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(retries).toEqual([
      expect.objectContaining({ attempt: 1, path: '/offramp/quote', delayMs: expect.any(Number), error: expect.any(ServiceUnavailableError) }),
    ]);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
  });

  it('retries a POST whose connection dropped, with the same Idempotency-Key', async () => {
    script = ['drop', 'drop', ok({ transactionId: 'txn_1' })];
    const started = await client().offramp.initiate({ quoteId: 'qt_1', walletId: 'wal_1' });
    expect(started).toEqual({ transactionId: 'txn_1' });
    expect(new Set(seen.map((request) => request.headers['idempotency-key'])).size).toBe(1);
    expect(retries.map((retry) => retry.error)).toEqual([expect.any(RampConnectionError), expect.any(RampConnectionError)]);
  });

  it('retries a GET whose connection dropped, but not a DELETE', async () => {
    script = ['drop', ok([])];
    expect(await client().webhooks.list()).toEqual([]);
    script = ['drop', ok({ id: 'wh_1', deleted: true })];
    const error = await client()
      .webhooks.delete('wh_1')
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RampConnectionError);
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', status: undefined });
    expect(seen).toHaveLength(3);
  });

  it("gives up after maxAttempts with the last typed error, even from a proxy's HTML page", async () => {
    const page = { status: 502, headers: { 'content-type': 'text/html' }, body: '<html><body>Bad Gateway</body></html>' };
    script = [page, page, page];
    const error = await client()
      .transfer.chains()
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 502, rawBody: page.body });
    expect(seen).toHaveLength(3);
    expect(retries.map((retry) => retry.attempt)).toEqual([1, 2]);
  });

  it('never retries another 4xx, and reports its code, field and request id', async () => {
    script = [failure(400, 'INVALID_REQUEST', 'amount: must be greater than zero', 'amount'), ok({})];
    const error = await client()
      .onramp.quote({ amount: '-1', tokenSymbol: 'USDC', chain: 'base' })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', field: 'amount', status: 400, requestId: 'req_400' });
    expect(seen).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('does not wait for a Retry-After beyond maxRetryAfterMs: the RateLimitError comes at once with retryAfter', async () => {
    script = [failure(429, 'RATE_LIMITED', 'Rate limit exceeded; retry in 90 seconds', undefined, { 'retry-after': '90' })];
    const error = await client()
      .transfer.chains()
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfter: 90, status: 429 });
    expect(seen).toHaveLength(1);
  });

  it('times out an attempt that gets no answer, and retries it', async () => {
    script = ['hang', ok({ walletId: 'wal_1' })];
    const wallet = await client({ timeoutMs: 200 }).wallets.get('wal_1');
    expect(wallet).toEqual({ walletId: 'wal_1' });
    expect(retries[0]!.error.message).toBe('No response within 200 ms');
    for (const response of hanging.splice(0)) response.destroy();
  });

  it('stops waiting between retries when the caller aborts', async () => {
    script = [failure(503, 'SERVICE_UNAVAILABLE', 'down', undefined, { 'retry-after': '30' })];
    const controller = new AbortController();
    const started = Date.now();
    const call = client().transfer.chains({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error('shutting down')), 100);
    await expect(call).rejects.toThrow('shutting down');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('turns a 2xx that is not the envelope into InvalidResponseError', async () => {
    script = [{ status: 200, headers: { 'content-type': 'text/html' }, body: '<html>captive portal</html>' }];
    await expect(client().banks.list()).rejects.toBeInstanceOf(InvalidResponseError);
  });

  it('refuses to build a request with an empty id instead of calling another route', async () => {
    await expect(client().offramp.get('')).rejects.toThrow('transactionId must be a non-empty string');
    expect(seen).toEqual([]);
  });
});
