import { Pool } from 'pg';
import { ApiClient, createKey, expectError, startServices, stopAll, type ServiceProcess, eventually } from '@ramp/testing';

describe('on-ramp - NGN in, crypto out, to a wallet or an address, through HTTP', () => {
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

  const quote = async (amount: string, tokenSymbol = 'USDC') => {
    const response = await api.post('/onramp/quote', { amount, tokenSymbol, chain: 'base' });
    expect(response.status).toBe(200);
    return response.body.data;
  };
  const newWallet = async () => (await api.post('/wallets', { chain: 'base' })).body.data.walletId as string;
  const balance = async (walletId: string, symbol: string) =>
    (await api.get(`/wallets/${walletId}`)).body.data.balances.find((entry: any) => entry.tokenSymbol === symbol);
  const settled = async (transactionId: string) =>
    (
      await eventually(
        () => api.get(`/onramp/${transactionId}`),
        (response) => response.status !== 200 || response.body.data.status !== 'pending',
      )
    ).body.data;

  it("takes the payer as customer with a test key, checks each field before the quote is used, and keeps the sandbox's account", async () => {
    const walletId = await newWallet();
    const q = await quote('20000');
    const customer = { email: 'ada.obi@example.com', firstName: 'Ada', lastName: 'Obi', phone: '08031234567' };
    for (const [bad, field] of [
      [{ ...customer, email: 'ada at example.com' }, 'customer.email'],
      [{ ...customer, phone: '12' }, 'customer.phone'],
      [{ ...customer, bvn: '22222222222' }, 'customer.bvn'],
      ['ada.obi@example.com', 'customer'],
    ] as const) {
      expectError(await api.post('/onramp/initiate', { quoteId: q.quoteId, walletId, customer: bad }), 400, 'INVALID_REQUEST', field);
    }
    // Refused before anything moved: the quote is still unused.
    const started = await api.post('/onramp/initiate', { quoteId: q.quoteId, walletId, customer });
    expect(started.status).toBe(201);
    expect(started.body.data.paymentInstructions).toMatchObject({ bankName: 'Wema Bank', amount: q.fiatAmount });
    expect(JSON.stringify(started.body.data)).not.toContain('ada.obi');
  });

  it('to a managed wallet: answers payment instructions, then credits the quoted tokens once the NGN arrives', async () => {
    const walletId = await newWallet();
    const q = await quote('50000');
    const started = await api.post('/onramp/initiate', { quoteId: q.quoteId, walletId, reference: 'topup-1' });
    expect(started.status).toBe(201);
    const pending = started.body.data;
    expect(pending).toMatchObject({
      type: 'onramp',
      status: 'pending',
      amount: q.cryptoAmount,
      tokenSymbol: 'USDC',
      walletId,
      reference: 'topup-1',
      ramp: { fiatAmount: q.fiatAmount, fiatCurrency: 'NGN' },
    });
    expect(pending.paymentInstructions).toMatchObject({ bankName: 'Wema Bank', amount: q.fiatAmount, accountNumber: expect.stringMatching(/^\d{10}$/) });
    expect(Date.parse(pending.paymentInstructions.expiresAt)).toBeGreaterThan(Date.now());

    expect((await api.post(`/sandbox/onramp/${pending.id}/pay`, {})).status).toBe(200);
    const done = await settled(pending.id);
    expect(done.status).toBe('completed');
    expect(done.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balance(walletId, 'USDC')).toMatchObject({ available: q.cryptoAmount, held: '0' });
    // A second payment notice changes nothing.
    await api.post(`/sandbox/onramp/${pending.id}/pay`, {});
    expect(await balance(walletId, 'USDC')).toMatchObject({ available: q.cryptoAmount });
  });

  it('to an address: delivers on chain; CNGN needs no swap', async () => {
    const q = await quote('20000', 'CNGN');
    const started = await api.post('/onramp/initiate', { quoteId: q.quoteId, destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' });
    expect(started.status).toBe(201);
    expect(started.body.data).toMatchObject({ transactionId: started.body.data.id, destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' });
    expect(started.body.data).not.toHaveProperty('walletId');
    await api.post(`/sandbox/onramp/${started.body.data.id}/pay`, {});
    expect((await settled(started.body.data.id)).status).toBe('completed');
  });

  it('refunds a payment of the wrong amount, then fails; fails an unpaid one at expiry', async () => {
    const walletId = await newWallet();
    const wrong = await api.post('/onramp/initiate', { quoteId: (await quote('50000')).quoteId, walletId });
    await api.post(`/sandbox/onramp/${wrong.body.data.id}/pay`, { amount: '40000' });
    const refunded = await settled(wrong.body.data.id);
    expect(refunded.status).toBe('failed');
    expect(refunded.errorMessage).toMatch(/not the expected 50000.*refunded/);

    // A swap that fails (its pool moved past the tolerance) is refunded too: onramp-onchain.e2e-spec.ts.
    const unpaid = await api.post('/onramp/initiate', { quoteId: (await quote('50000')).quoteId, walletId });
    expect(await settled(unpaid.body.data.id)).toMatchObject({ status: 'failed', errorMessage: 'No payment was received before the virtual account expired' });
  });

  it('answers 4xx before using the quote, and one transaction for 20 parallel initiations', async () => {
    const walletId = await newWallet();
    const q = await quote('50000');
    expectError(await api.post('/onramp/initiate', { quoteId: q.quoteId }), 400, 'INVALID_REQUEST', 'walletId');
    expectError(
      await api.post('/onramp/initiate', { quoteId: q.quoteId, destinationAddress: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' }),
      400,
      'INVALID_REQUEST',
      'destinationAddress',
    );
    const stranger = await createKey();
    const theirs = (await api.withKey(stranger.apiKey).post('/wallets', { chain: 'base' })).body.data.walletId;
    expectError(await api.post('/onramp/initiate', { quoteId: q.quoteId, walletId: theirs }), 404, 'NOT_FOUND');
    const attempts = await Promise.all(Array.from({ length: 20 }, () => api.post('/onramp/initiate', { quoteId: q.quoteId, walletId })));
    expect(attempts.filter((response) => response.status === 201)).toHaveLength(1);
    for (const response of attempts.filter((r) => r.status !== 201)) expectError(response, 409, 'CONFLICT');
    expectError(await api.withKey(stranger.apiKey).get(`/onramp/${attempts.find((r) => r.status === 201)!.body.data.id}`), 404, 'NOT_FOUND');
    const offrampId = attempts.find((r) => r.status === 201)!.body.data.id;
    expectError(await api.get(`/offramp/${offrampId}`), 404, 'NOT_FOUND');
  });
});
