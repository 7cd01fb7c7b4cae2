import { Pool } from 'pg';
import { makeNuban } from '@ramp/banking';
import {
  ApiClient,
  createKey,
  eventually,
  expectError,
  makeTestCertificates,
  rebuildTransactions,
  readModelRows,
  startServices,
  stopAll,
  WebhookReceiver,
  type ServiceProcess,
  type TestKey,
} from '@ramp/testing';

const ACCOUNT = makeNuban('058', '012345678');
const SOURCE = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('sandbox reset - POST /sandbox/reset empties a test environment, the event logs stay append-only', () => {
  const certificates = makeTestCertificates();
  const secrets = new Map<string, string>();
  const receiver = new WebhookReceiver(certificates, { secretFor: (path) => secrets.get(path), statusFor: () => 200 });
  let services: Map<string, ServiceProcess>;
  let owner: TestKey;
  let api: ApiClient;
  let sibling: ApiClient;
  let pool: Pool;

  beforeAll(async () => {
    await receiver.start();
    services = await startServices(['quote', 'ledger', 'ramp', 'swap-transfer', 'notifier', 'gateway'], {
      SANDBOX_STEP_DELAY_MS: '20',
      WEBHOOK_ALLOW_HOSTS: 'localhost',
      WEBHOOK_CA_FILE: certificates.caFile,
    });
    const name = `Reset Org ${Date.now()}`;
    owner = await createKey({ org: name });
    const url = `${services.get('gateway')!.url}/v1`;
    api = new ApiClient(url, owner.apiKey);
    // Another test key of the same organization: it shares the environment, so it sees the reset too.
    sibling = new ApiClient(url, (await createKey({ org: name, extra: ['--org-id', owner.organizationId] })).apiKey);
    pool = new Pool({ connectionString: process.env.DATABASE_URL });
  });

  afterAll(async () => {
    await pool.end();
    await stopAll(services.values());
    await receiver.stop();
  });

  const register = async (path: string) => {
    const created = await api.post('/webhooks', { url: receiver.url(path), events: ['*'] });
    expect(created.status).toBe(201);
    secrets.set(path, created.body.data.secret);
    return created.body.data.id as string;
  };

  const eventsInLogs = async (ids: string[]) =>
    (
      await pool.query<{ n: number }>(
        `select (select count(*) from ramp.events where stream_id like any($1)) + (select count(*) from swap_transfer.events where stream_id like any($1)) as n`,
        [ids.map((id) => `%${id}`)],
      )
    ).rows[0]!.n;

  it('leaves no wallet, balance, transaction, webhook, quote or stored response; keeps every event; and the new sandbox works', async () => {
    // Before: a funded wallet, a completed swap, a pending non-custodial off-ramp, a webhook, an unused quote and a
    // POST answered under an Idempotency-Key.
    const wallet = (await api.post('/wallets', { chain: 'base', label: 'before' }, { 'Idempotency-Key': 'reset-wallet' })).body.data.walletId as string;
    // Each answer checked with its body, so that a failure says which call refused and why.
    const funded = await api.post(`/sandbox/wallets/${wallet}/fund`, { tokenSymbol: 'USDC', amount: '100' });
    expect({ status: funded.status, body: funded.status === 200 ? undefined : funded.body }).toEqual({ status: 200, body: undefined });
    const quoted = await api.post('/swap/quote', { fromToken: 'USDC', toToken: 'ETH', amount: '10', fromChain: 'base', toChain: 'base' });
    expect({ status: quoted.status, body: quoted.status === 200 ? undefined : quoted.body }).toEqual({ status: 200, body: undefined });
    const swapQuote = quoted.body.data;
    const swap = (await api.post('/swap/initiate', { quoteId: swapQuote.quoteId, walletId: wallet })).body.data.transactionId as string;
    await eventually(
      () => api.get(`/transactions/${swap}`),
      (response) => response.body.data?.status === 'completed',
    );
    const offrampQuote = (await api.post('/offramp/quote', { amount: '10', tokenSymbol: 'USDC', bankCode: '058', accountNumber: ACCOUNT, chain: 'base' })).body
      .data;
    const pending = (await api.post('/offramp/initiate', { quoteId: offrampQuote.quoteId, sourceAddress: SOURCE })).body.data.transactionId as string;
    const oldHook = await register('/before');
    const unused = (await api.post('/onramp/quote', { amount: '50000', tokenSymbol: 'USDC', chain: 'base' })).body.data.quoteId as string;
    const logged = await eventsInLogs([swap, pending]);

    const reset = await api.post('/sandbox/reset', {});
    expect(reset.status).toBe(200);
    expect(reset.body.data).toEqual({ reset: true, environment: 'test', resetAt: expect.any(String) });

    // Every key of the organization sees an empty environment at once.
    for (const client of [api, sibling]) {
      expect((await client.get('/wallets')).body).toMatchObject({ data: [], meta: { total: 0 } });
      expect((await client.get('/transactions')).body).toMatchObject({ data: [], meta: { total: 0 } });
      expect((await client.get('/webhooks')).body.data).toEqual([]);
      expectError(await client.get(`/wallets/${wallet}`), 404, 'NOT_FOUND', undefined, 'WALLET_NOT_FOUND');
      expectError(await client.get(`/transactions/${swap}`), 404, 'NOT_FOUND', undefined, 'TRANSACTION_NOT_FOUND');
      expectError(await client.get(`/swap/${swap}`), 404, 'NOT_FOUND', undefined, 'TRANSACTION_NOT_FOUND');
      expectError(await client.get(`/offramp/${pending}`), 404, 'NOT_FOUND', undefined, 'TRANSACTION_NOT_FOUND');
      expectError(await client.get(`/webhooks/${oldHook}/deliveries`), 404, 'NOT_FOUND', undefined, 'WEBHOOK_NOT_FOUND');
      expectError(await client.post(`/sandbox/offramp/${pending}/deposit`, {}), 404, 'NOT_FOUND', undefined, 'TRANSACTION_NOT_FOUND');
    }
    expectError(await api.post('/onramp/initiate', { quoteId: unused, destinationAddress: SOURCE }), 404, 'NOT_FOUND', undefined, 'QUOTE_NOT_FOUND');
    // The Idempotency-Key is free again: the same request runs anew and makes a new wallet.
    const again = await api.post('/wallets', { chain: 'base', label: 'before' }, { 'Idempotency-Key': 'reset-wallet' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.data.walletId).not.toBe(wallet);
    expect(again.body.data.balances.every((balance: { available: string }) => balance.available === '0')).toBe(true);

    // Append-only: the logs keep every event of the transactions the reset hid, and the read model still has their
    // rows (for the old generation), equal to a rebuild.
    expect(await eventsInLogs([swap, pending])).toBe(logged);
    expect((await readModelRows(pool, [swap])).map((row) => row.id)).toEqual([swap]);

    // The new sandbox works, and its events reach only its own webhooks.
    const newHook = await register('/after');
    await api.post(`/sandbox/wallets/${again.body.data.walletId}/fund`, { tokenSymbol: 'USDC', amount: '50' });
    const quote = (await api.post('/swap/quote', { fromToken: 'USDC', toToken: 'ETH', amount: '10', fromChain: 'base', toChain: 'base' })).body.data;
    const fresh = (await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId: again.body.data.walletId })).body.data.transactionId as string;
    await eventually(
      async () => receiver.received.filter((delivery) => delivery.body?.data?.transactionId === fresh),
      (got) => got.length >= 1,
    );
    expect((await api.get('/webhooks')).body.data.map((hook: { id: string }) => hook.id)).toEqual([newHook]);
    expect((await api.get('/transactions')).body.data.map((transaction: { id: string }) => transaction.id)).toEqual([fresh]);
    await new Promise((wait) => setTimeout(wait, 300));
    const deliveries = receiver.received.filter((delivery) => delivery.body?.data?.transactionId === fresh);
    expect(deliveries.map((delivery) => delivery.path)).toEqual(['/after']);
    expect(deliveries[0]!.signatureValid).toBe(true);

    const rebuilt = await rebuildTransactions();
    expect(rebuilt.transactions).toBeGreaterThanOrEqual(3);
    expect((await api.get('/transactions')).body.data.map((transaction: { id: string }) => transaction.id)).toEqual([fresh]);
    expect((await api.get(`/transactions/${swap}`)).status).toBe(404);
  });

  it('is for test keys only: a live key gets NOT_FOUND, and a body with fields is refused', async () => {
    const live = await createKey({ env: 'live' });
    expectError(await api.withKey(live.apiKey).post('/sandbox/reset', {}), 404, 'NOT_FOUND', undefined, 'SANDBOX_ONLY');
    expectError(await api.post('/sandbox/reset', { everything: true }), 400, 'INVALID_REQUEST', 'everything', 'INVALID_FIELD');
  });

  it('answers a retried reset from the first, by its Idempotency-Key: the one stored response a reset keeps', async () => {
    const first = await api.post('/sandbox/reset', {}, { 'Idempotency-Key': 'reset-once' });
    expect(first.status).toBe(200);
    const replay = await api.post('/sandbox/reset', {}, { 'Idempotency-Key': 'reset-once' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
  });

  it('leaves other organizations alone', async () => {
    const other = await createKey();
    const theirs = new ApiClient(api.baseUrl, other.apiKey);
    const wallet = (await theirs.post('/wallets', { chain: 'bsc' })).body.data.walletId;
    expect((await api.post('/sandbox/reset', {})).status).toBe(200);
    expect((await theirs.get(`/wallets/${wallet}`)).status).toBe(200);
  });
});
