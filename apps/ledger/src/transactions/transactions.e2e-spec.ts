import { Pool } from 'pg';
import { makeNuban } from '@ramp/banking';
import { ApiClient, createKey, expectError, rebuildTransactions, startServices, stopAll, type ServiceProcess } from '@ramp/testing';

jest.setTimeout(90_000);

describe('transactions read model - GET /transactions and its filters, and a rebuild equal to the live model', () => {
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let pool: Pool;
  let walletId: string;
  const ids: Record<string, string> = {};
  let startedAt: string;

  beforeAll(async () => {
    services = await startServices(['quote', 'ledger', 'ramp', 'gateway'], { SANDBOX_STEP_DELAY_MS: '0', SANDBOX_DEPOSIT_WINDOW_SECONDS: '600' });
    const key = await createKey({ plan: 'enterprise' });
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, key.apiKey);
    pool = new Pool({ connectionString: process.env.DATABASE_URL });
    startedAt = new Date(Date.now() - 1000).toISOString();

    walletId = (await api.post('/wallets', { chain: 'base' })).body.data.walletId;
    await api.post(`/sandbox/wallets/${walletId}/fund`, { tokenSymbol: 'USDC', amount: '1000' });
    // The sandbox bank rejects payouts to accounts of the serial 888888888: that off-ramp fails.
    const offramp = async (amount: string, serial = '012345678') => {
      const quote = (await api.post('/offramp/quote', { amount, tokenSymbol: 'USDC', bankCode: '058', accountNumber: makeNuban('058', serial), chain: 'base' }))
        .body.data;
      return (await api.post('/offramp/initiate', { quoteId: quote.quoteId, walletId })).body.data.transactionId as string;
    };
    ids['completedOfframp'] = await offramp('10');
    ids['failedOfframp'] = await offramp('13', '888888888');
    const onrampQuote = (await api.post('/onramp/quote', { amount: '50000', tokenSymbol: 'USDC', chain: 'base' })).body.data;
    ids['pendingOnramp'] = (await api.post('/onramp/initiate', { quoteId: onrampQuote.quoteId, walletId })).body.data.id;
    const bscQuote = (await api.post('/onramp/quote', { amount: '20000', tokenSymbol: 'CNGN', chain: 'bsc' })).body.data;
    ids['bscOnramp'] = (
      await api.post('/onramp/initiate', { quoteId: bscQuote.quoteId, destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' })
    ).body.data.id;

    // The read model follows the event streams: wait until it shows every transaction in its final state.
    const expected: Record<string, string> = { completedOfframp: 'completed', failedOfframp: 'failed', pendingOnramp: 'pending', bscOnramp: 'pending' };
    const deadline = Date.now() + 30_000;
    for (const [name, status] of Object.entries(expected)) {
      for (;;) {
        const response = await api.get(`/transactions/${ids[name]}`);
        if (response.status === 200 && response.body.data.status === status) break;
        if (Date.now() > deadline) throw new Error(`${name} did not reach ${status}: ${response.text}`);
        await new Promise((wait) => setTimeout(wait, 50));
      }
    }
  });

  afterAll(async () => {
    await pool.end();
    await stopAll(services.values());
  });

  const listed = async (query: string) => {
    const response = await api.get(`/transactions${query}`);
    expect(response.status).toBe(200);
    return response.body;
  };

  it("lists the tenant's transactions newest first in the list envelope, equal to each type's own endpoint", async () => {
    const body = await listed('');
    expect(body.success).toBe(true);
    expect(body.data.map((t: any) => t.id)).toEqual([ids['bscOnramp'], ids['pendingOnramp'], ids['failedOfframp'], ids['completedOfframp']]);
    expect(body.meta).toEqual({ page: 1, limit: 20, total: 4, totalPages: 1 });
    expect(body.data[0]).toEqual((await api.get(`/onramp/${ids['bscOnramp']}`)).body.data);
    expect((await api.get(`/transactions/${ids['completedOfframp']}`)).body.data).toEqual((await api.get(`/offramp/${ids['completedOfframp']}`)).body.data);
    const failed = body.data.find((t: any) => t.id === ids['failedOfframp']);
    expect(failed.errorMessage).toMatch(/bank payout was rejected/);
  });

  it('filters by type, status, chain, wallet and dates, and pages', async () => {
    expect((await listed('?type=offramp')).data.map((t: any) => t.id)).toEqual([ids['failedOfframp'], ids['completedOfframp']]);
    expect((await listed('?status=pending')).data.map((t: any) => t.id)).toEqual([ids['bscOnramp'], ids['pendingOnramp']]);
    expect((await listed('?chain=bsc')).data.map((t: any) => t.id)).toEqual([ids['bscOnramp']]);
    expect((await listed(`?walletId=${walletId}&type=onramp`)).data.map((t: any) => t.id)).toEqual([ids['pendingOnramp']]);
    expect((await listed('?type=swap')).meta).toEqual({ page: 1, limit: 20, total: 0, totalPages: 0 });
    expect((await listed(`?from=${encodeURIComponent(startedAt)}`)).meta.total).toBe(4);
    expect((await listed(`?to=${encodeURIComponent(startedAt)}`)).meta.total).toBe(0);
    const page2 = await listed('?limit=3&page=2');
    expect(page2.data.map((t: any) => t.id)).toEqual([ids['completedOfframp']]);
    expect(page2.meta).toEqual({ page: 2, limit: 3, total: 4, totalPages: 2 });
  });

  it('answers 400 naming the filter for invalid ones', async () => {
    for (const [query, field] of [
      ['?type=refund', 'type'],
      ['?status=done', 'status'],
      ['?chain=tron', 'chain'],
      ['?walletId=abc', 'walletId'],
      ['?limit=101', 'limit'],
      ['?limit=0', 'limit'],
      ['?page=two', 'page'],
      ['?from=yesterday', 'from'],
      ['?from=2026-11-23&to=2026-11-22', 'to'],
      ['?colour=red', 'colour'],
      ['?type=onramp&type=offramp', 'type'],
    ] as const) {
      expectError(await api.get(`/transactions${query}`), 400, 'INVALID_REQUEST', field);
    }
  });

  it("hides other tenants' transactions", async () => {
    const stranger = api.withKey((await createKey()).apiKey);
    expect((await stranger.get('/transactions')).body.meta.total).toBe(0);
    expectError(await stranger.get(`/transactions/${ids['completedOfframp']}`), 404, 'NOT_FOUND');
    expectError(await api.get('/transactions/txn_nope'), 404, 'NOT_FOUND');
  });

  it('rebuilds the read model from the event streams into exactly the live one', async () => {
    const snapshot = async () =>
      (await pool.query(`select id, organization_id, environment, generation, stream_version, status, view from ledger.transactions order by id`)).rows;
    const live = await snapshot();
    const report = await rebuildTransactions();
    expect(report).toMatchObject({ projection: 'transactions', transactions: live.length });
    expect(report.events).toBeGreaterThan(0);
    expect(await snapshot()).toEqual(live);

    // The rebuilt table was swapped in by name: the running ledger (its statements prepared on the old table) projects
    // a new transaction into it and reads it back.
    const quote = (
      await api.post('/offramp/quote', { amount: '11', tokenSymbol: 'USDC', bankCode: '058', accountNumber: makeNuban('058', '012345678'), chain: 'base' })
    ).body.data;
    const id = (await api.post('/offramp/initiate', { quoteId: quote.quoteId, walletId })).body.data.transactionId as string;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const response = await api.get(`/transactions/${id}`);
      if (response.status === 200 && response.body.data.status === 'completed') break;
      if (Date.now() > deadline) throw new Error(`${id} did not complete after the rebuild: ${response.text}`);
      await new Promise((wait) => setTimeout(wait, 50));
    }
    expect((await pool.query(`select status from ledger.transactions where id = $1`, [id])).rows).toEqual([{ status: 'completed' }]);
  });
});
