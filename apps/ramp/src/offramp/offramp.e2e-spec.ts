import { Pool } from 'pg';
import { makeNuban } from '@ramp/banking';
import { ApiClient, createKey, expectError, startServices, stopAll, type ServiceProcess, eventually } from '@ramp/testing';

const GTB = makeNuban('058', '012345678');
const REJECTING = makeNuban('058', '888888888');

describe('off-ramp - custodial and non-custodial, through HTTP, with the ledger checked after each', () => {
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let pool: Pool;

  beforeAll(async () => {
    services = await startServices(['quote', 'ledger', 'ramp', 'gateway'], { SANDBOX_STEP_DELAY_MS: '50', SANDBOX_DEPOSIT_WINDOW_SECONDS: '3' });
    const key = await createKey({ plan: 'enterprise' });
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, key.apiKey);
    pool = new Pool({ connectionString: process.env.DATABASE_URL });
  });

  afterAll(async () => {
    await pool.end();
    await stopAll(services.values());
  });

  const wallet = async (funds: Record<string, string> = {}, client = api) => {
    const created = await client.post('/wallets', { chain: 'base' });
    expect(created.status).toBe(201);
    for (const [tokenSymbol, amount] of Object.entries(funds)) {
      expect((await client.post(`/sandbox/wallets/${created.body.data.walletId}/fund`, { tokenSymbol, amount })).status).toBe(200);
    }
    return created.body.data.walletId as string;
  };
  const quote = async (amount: string, tokenSymbol = 'USDC', accountNumber = GTB, client = api) => {
    const response = await client.post('/offramp/quote', { amount, tokenSymbol, bankCode: '058', accountNumber, chain: 'base' });
    expect(response.status).toBe(200);
    return response.body.data;
  };
  const balance = async (walletId: string, symbol: string) =>
    (await api.get(`/wallets/${walletId}`)).body.data.balances.find((entry: any) => entry.tokenSymbol === symbol);
  const settled = async (transactionId: string, client = api) =>
    (
      await eventually(
        () => client.get(`/offramp/${transactionId}`),
        (response) => response.status !== 200 || response.body.data.status !== 'pending',
      )
    ).body.data;

  const booksBalance = async () => {
    const unbalanced = await pool.query(`select asset from ledger.postings group by asset having sum(amount) <> 0`);
    const negative = await pool.query(`select account from ledger.balances where not may_go_negative and amount < 0`);
    expect(unbalanced.rows).toEqual([]);
    expect(negative.rows).toEqual([]);
  };

  it('custodial USDC: holds, swaps to CNGN, pays out NGN, captures, completes; the wallet is debited once', async () => {
    const walletId = await wallet({ USDC: '500' });
    const q = await quote('100');
    const started = await api.post('/offramp/initiate', { quoteId: q.quoteId, walletId, reference: 'order-42' });
    expect(started.status).toBe(201);
    expect(started.body.data).toMatchObject({ reference: 'order-42', status: 'pending', estimatedFiatAmount: q.payoutAmount });
    expect(started.body.data).not.toHaveProperty('depositAddress'); // custodial: absent, never null
    expect(started.body.data.transactionId).toMatch(/^txn_[0-9A-Z]{26}$/);
    expect(typeof started.body.data.estimatedArrival).toBe('string');

    const done = await settled(started.body.data.transactionId);
    expect(done).toMatchObject({
      id: started.body.data.transactionId,
      type: 'offramp',
      status: 'completed',
      chain: 'base',
      amount: '100',
      tokenSymbol: 'USDC',
      reference: 'order-42',
      walletId,
      fees: { platformFee: q.fees.platformFee, providerFee: q.fees.providerFee, totalFee: q.fees.totalFee },
      ramp: {
        fiatAmount: q.fiatAmount,
        fiatCurrency: 'NGN',
        bankAccount: { bankName: q.bankAccount.bankName, accountNumber: GTB, accountName: q.bankAccount.accountName },
      },
    });
    expect(done.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(done).not.toHaveProperty('errorMessage');
    expect(await balance(walletId, 'USDC')).toMatchObject({ available: '400', held: '0' });
    await booksBalance();
  });

  it('custodial CNGN needs no swap and completes too', async () => {
    const walletId = await wallet({ CNGN: '20000' });
    const q = await quote('15000', 'CNGN');
    const started = await api.post('/offramp/initiate', { quoteId: q.quoteId, walletId });
    expect(started.status).toBe(201);
    expect((await settled(started.body.data.transactionId)).status).toBe('completed');
    expect(await balance(walletId, 'CNGN')).toMatchObject({ available: '5000', held: '0' });
  });

  it('gives exactly one transaction for 20 parallel initiations with one quote, and debits once', async () => {
    const walletId = await wallet({ USDC: '1000' });
    const q = await quote('100');
    const attempts = await Promise.all(Array.from({ length: 20 }, () => api.post('/offramp/initiate', { quoteId: q.quoteId, walletId })));
    const created = attempts.filter((response) => response.status === 201);
    expect(created).toHaveLength(1);
    for (const response of attempts.filter((r) => r.status !== 201)) expectError(response, 409, 'CONFLICT');
    expect((await settled(created[0]!.body.data.transactionId)).status).toBe('completed');
    expect(await balance(walletId, 'USDC')).toMatchObject({ available: '900', held: '0' });
  });

  it('answers 4xx, without using the quote, for a wallet that cannot pay or is not yours', async () => {
    const poor = await wallet({ USDC: '5' });
    const q = await quote('100');
    const refused = await api.post('/offramp/initiate', { quoteId: q.quoteId, walletId: poor });
    expectError(refused, 400, 'INVALID_REQUEST', 'walletId');
    expect(refused.body.error.message).toContain('5 USDC');

    const stranger = await createKey();
    const theirs = await wallet({ USDC: '500' }, api.withKey(stranger.apiKey));
    expectError(await api.post('/offramp/initiate', { quoteId: q.quoteId, walletId: theirs }), 404, 'NOT_FOUND');
    expectError(await api.withKey(stranger.apiKey).post('/offramp/initiate', { quoteId: q.quoteId, walletId: theirs }), 404, 'NOT_FOUND');

    // The quote was not used by the refusals: funded, the same quote goes through.
    await api.post(`/sandbox/wallets/${poor}/fund`, { tokenSymbol: 'USDC', amount: '95' });
    const accepted = await api.post('/offramp/initiate', { quoteId: q.quoteId, walletId: poor });
    expect(accepted.status).toBe(201);
    expectError(await api.post('/offramp/initiate', { quoteId: q.quoteId, walletId: poor }), 409, 'CONFLICT');
    expect((await settled(accepted.body.data.transactionId)).status).toBe('completed');
  });

  it('validates the request: one of walletId and sourceAddress, a valid address, a callback URL, a real quote', async () => {
    const walletId = await wallet({ USDC: '500' });
    const q = await quote('10');
    expectError(await api.post('/offramp/initiate', {}), 400, 'INVALID_REQUEST', 'quoteId');
    expectError(await api.post('/offramp/initiate', { quoteId: q.quoteId }), 400, 'INVALID_REQUEST', 'walletId');
    expectError(
      await api.post('/offramp/initiate', { quoteId: q.quoteId, walletId, sourceAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }),
      400,
      'INVALID_REQUEST',
      'walletId',
    );
    expectError(
      await api.post('/offramp/initiate', { quoteId: q.quoteId, sourceAddress: '0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }),
      400,
      'INVALID_REQUEST',
      'sourceAddress',
    );
    expectError(await api.post('/offramp/initiate', { quoteId: q.quoteId, walletId, callbackUrl: 'ftp://example.com' }), 400, 'INVALID_REQUEST', 'callbackUrl');
    expectError(await api.post('/offramp/initiate', { quoteId: 'qt_nope', walletId }), 404, 'NOT_FOUND');
    const onramp = (await api.post('/onramp/quote', { amount: '50000', tokenSymbol: 'USDC', chain: 'base' })).body.data;
    expectError(await api.post('/offramp/initiate', { quoteId: onramp.quoteId, walletId }), 400, 'INVALID_REQUEST', 'quoteId');
    expectError(await api.get('/offramp/txn_nope'), 404, 'NOT_FOUND');
  });

  it('fails a payout the bank rejects and gives the wallet its tokens back', async () => {
    const walletId = await wallet({ USDC: '50' });
    const q = await quote('20', 'USDC', REJECTING);
    const started = await api.post('/offramp/initiate', { quoteId: q.quoteId, walletId });
    const failed = await settled(started.body.data.transactionId);
    expect(failed).toMatchObject({ status: 'failed' });
    expect(failed.errorMessage).toMatch(/payout was rejected/);
    expect(await balance(walletId, 'USDC')).toMatchObject({ available: '50', held: '0' });
  });

  it('non-custodial: answers a deposit address, then completes once the crypto arrives', async () => {
    const q = await quote('25');
    const started = await api.post('/offramp/initiate', { quoteId: q.quoteId, sourceAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' });
    expect(started.status).toBe(201);
    const { transactionId, depositAddress } = started.body.data;
    expect(depositAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const pending = (await api.get(`/offramp/${transactionId}`)).body.data;
    expect(pending).toMatchObject({ status: 'pending', depositAddress });
    expect(pending).not.toHaveProperty('walletId');
    const deposited = await api.post(`/sandbox/offramp/${transactionId}/deposit`, {});
    expect(deposited.status).toBe(200);
    expect((await settled(transactionId)).status).toBe('completed');
  });

  it('non-custodial: returns a deposit of the wrong amount and fails; fails when nothing arrives before expiry', async () => {
    const wrong = await api.post('/offramp/initiate', { quoteId: (await quote('25')).quoteId, sourceAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' });
    await api.post(`/sandbox/offramp/${wrong.body.data.transactionId}/deposit`, { amount: '24' });
    const returned = await settled(wrong.body.data.transactionId);
    expect(returned.status).toBe('failed');
    expect(returned.errorMessage).toMatch(/not the quoted 25; it is returned/);

    const silent = await api.post('/offramp/initiate', { quoteId: (await quote('25')).quoteId, sourceAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' });
    const expired = await settled(silent.body.data.transactionId);
    expect(expired).toMatchObject({ status: 'failed', errorMessage: 'No deposit was received before the deposit address expired' });
  });

  it('keeps the sandbox deposit to test keys and non-custodial off-ramps', async () => {
    const walletId = await wallet({ USDC: '50' });
    const custodial = await api.post('/offramp/initiate', { quoteId: (await quote('10')).quoteId, walletId });
    expectError(await api.post(`/sandbox/offramp/${custodial.body.data.transactionId}/deposit`, {}), 409, 'CONFLICT');
    const live = await createKey({ env: 'live' });
    expectError(await api.withKey(live.apiKey).post(`/sandbox/offramp/${custodial.body.data.transactionId}/deposit`, {}), 404, 'NOT_FOUND');
    const stranger = await createKey();
    expectError(await api.withKey(stranger.apiKey).get(`/offramp/${custodial.body.data.transactionId}`), 404, 'NOT_FOUND');
  });

  it('says "retry as it is" when a service it only reads from is down: 503 with Retry-After, the key and the quote unused', async () => {
    const walletId = await wallet({ USDC: '50' });
    const q = await quote('10');
    const ledger = services.get('ledger')!;
    const request = { quoteId: q.quoteId, walletId, reference: 'while-the-ledger-is-down' };
    const headers = { 'Idempotency-Key': `ledger-down-${Date.now()}` };
    await ledger.stop();
    try {
      const refused = await api.post('/offramp/initiate', request, headers);
      expectError(refused, 503, 'SERVICE_UNAVAILABLE');
      expect(refused.headers.get('retry-after')).toBe('1');
    } finally {
      await ledger.start();
    }
    // The same request with the same key runs now: nothing had been done, the quote is still unused.
    const started = await api.post('/offramp/initiate', request, headers);
    expect(started.status).toBe(201);
    expect((await settled(started.body.data.transactionId)).status).toBe('completed');
  });
});
