import { Pool } from 'pg';
import { newId, type OnrampQuote } from '@ramp/contracts';
import { EventLog } from '@ramp/event-store';
import { onrampDecider, type OnrampEvent, type OnrampState } from '@ramp/ramping';
import {
  ApiClient,
  createKey,
  operatorCommand,
  runCompiled,
  eventually,
  expectError,
  PARTNER_CONTRACTS,
  PaystackEmulator,
  PrismProxy,
  startServices,
  stopAll,
  TEST_DATABASE_URL,
  type ServiceProcess,
} from '@ramp/testing';

/**
 * A live on-ramp's Naira collected by a bank partner, through the real quote, ramp and gateway services, against the
 * project's Paystack emulator behind Prism (Paystack's published contract checks every request and answer). A live
 * on-ramp cannot be quoted yet (live prices and chains are issue 28), so each test writes the live quote the quote
 * service would have stored, and initiates it through the API as an integrator does. After an exact payment the
 * on-ramp waits for a live chain (its CNGN step refuses); every other path (refunds, holds, expiry) ends here.
 */
describe('live collections - an on-ramp paid into the payer’s dedicated account at the bank partner', () => {
  const paystack = new PaystackEmulator(`sk_live_${Math.random().toString(36).slice(2)}`);
  const pool = new Pool({ connectionString: TEST_DATABASE_URL });
  const log = new EventLog('ramp');
  const windowSeconds = 6;
  let prism: PrismProxy;
  let services: Map<string, ServiceProcess>;
  let keys: { api: ApiClient; organizationId: string }[];
  let paystackWebhook: string;

  const payer = (name: string) => ({
    email: `${name}.${Math.random().toString(36).slice(2, 8)}@example.com`,
    firstName: 'Ada',
    lastName: 'Obi',
    phone: '08031234567',
  });

  /** The live on-ramp quote the quote service would store for this organization: 50,000 NGN for 33.25 USDC on base. */
  async function liveQuote(organizationId: string, fiatAmount = '50000.00'): Promise<OnrampQuote.Response> {
    const now = new Date();
    const quote: OnrampQuote.Response = {
      quoteId: newId('qt'),
      expiresAt: new Date(now.getTime() + 300_000).toISOString(),
      fiatAmount,
      fiatCurrency: 'NGN',
      cryptoAmount: '33.25',
      tokenSymbol: 'USDC',
      chain: 'base',
      rate: '1500',
      fees: { providerFee: '75.00', platformFee: '20.00', swapFee: '25.00', totalFee: '120.00' },
    };
    await pool.query(
      `insert into quote.quotes (id, organization_id, environment, generation, kind, request, response, created_at, expires_at)
       values ($1, $2, 'live', 0, 'onramp', $3, $4, $5, $6)`,
      [quote.quoteId, organizationId, JSON.stringify({ amount: fiatAmount, tokenSymbol: 'USDC', chain: 'base' }), JSON.stringify(quote), now, quote.expiresAt],
    );
    return quote;
  }

  async function initiate(key = 0, customer = payer('ada'), fiatAmount?: string) {
    const quote = await liveQuote(keys[key]!.organizationId, fiatAmount);
    const started = await keys[key]!.api.post('/onramp/initiate', {
      quoteId: quote.quoteId,
      destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      customer,
    });
    expect(started.status).toBe(201);
    return { quote, transactionId: started.body.data.id as string, instructions: started.body.data.paymentInstructions, customer };
  }

  const stateOf = async (transactionId: string): Promise<OnrampState> =>
    (await log.readStream(pool, `onramp-${transactionId}`)).reduce(
      (state, event) => onrampDecider.evolve(state, event as unknown as OnrampEvent),
      onrampDecider.initialState,
    );
  const until = (transactionId: string, done: (state: OnrampState) => boolean, ms = 30_000) => eventually(() => stateOf(transactionId), done, ms);
  const paymentOf = async (reference: string) =>
    (await pool.query(`select matched, transaction_id, refund from ramp.collection_payments where provider = 'paystack' and reference = $1`, [reference]))
      .rows[0];
  const kobo = (naira: string) => Math.round(Number(naira) * 100);
  const OPS = 'dist/apps/ramp/src/cli/ops.js';
  const opsEnv = () => ({ PAYSTACK_SECRET_KEY: paystack.secretKey, PAYSTACK_BASE_URL: prism.url });
  const refundCalls = (reference: string) => paystack.calls('/refund').filter((call) => (call.body as { transaction: string }).transaction === reference);

  beforeAll(async () => {
    await paystack.start();
    prism = await PrismProxy.start(PARTNER_CONTRACTS.paystack, paystack.url);
    services = await startServices(['quote', 'ramp', 'gateway'], {
      PAYSTACK_SECRET_KEY: paystack.secretKey,
      PAYSTACK_BASE_URL: prism.url,
      LIVE_PROVIDERS_ENABLED: 'true',
      SANDBOX_DEPOSIT_WINDOW_SECONDS: String(windowSeconds),
    });
    const gateway = services.get('gateway')!;
    keys = await Promise.all(
      [0, 1].map(async () => {
        const key = await createKey({ env: 'live' });
        return { api: new ApiClient(`${gateway.url}/v1`, key.apiKey), organizationId: key.organizationId };
      }),
    );
    paystackWebhook = `${gateway.url}/partners/paystack/webhook`;
  });

  afterAll(async () => {
    await stopAll(services?.values() ?? []);
    await prism?.stop();
    await paystack.stop();
    await pool.end();
  });

  afterEach(() => expect(prism.violations).toEqual([]));

  it("needs the payer with a live key, and gives the partner's dedicated account as the payment instructions", async () => {
    const quote = await liveQuote(keys[0]!.organizationId);
    const missing = await keys[0]!.api.post('/onramp/initiate', { quoteId: quote.quoteId, destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' });
    expectError(missing, 400, 'INVALID_REQUEST', 'customer');
    expect(paystack.calls('/customer')).toHaveLength(0);

    const customer = payer('first');
    // The partner down (three 503s: every attempt of one ask): SERVICE_UNAVAILABLE, never a 500, the quote unused.
    paystack.failNext(3, 503, '/customer');
    const down = await keys[0]!.api.post('/onramp/initiate', {
      quoteId: quote.quoteId,
      destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      customer,
    });
    expectError(down, 503, 'SERVICE_UNAVAILABLE');
    // The same quote, unused by the refusals.
    const started = await keys[0]!.api.post('/onramp/initiate', {
      quoteId: quote.quoteId,
      destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      customer,
    });
    expect(started.status).toBe(201);
    const account = paystack.customers.get(customer.email)!.account!;
    expect(started.body.data.paymentInstructions).toEqual({
      bankName: 'Wema Bank',
      bankCode: '035',
      accountNumber: account,
      accountName: 'RAMP/ADA OBI',
      amount: '50000.00',
      expiresAt: expect.any(String),
    });
    expect(paystack.calls('/customer').at(-1)!.body).toEqual({ email: customer.email, first_name: 'Ada', last_name: 'Obi', phone: '+2348031234567' });
    // The payer stays the partner's: the answer does not show them.
    expect(JSON.stringify(started.body.data)).not.toContain(customer.email);
  });

  it('records an exact payment from charge.success on its on-ramp, once, and gives a second payment into the account back at once', async () => {
    const { transactionId, instructions } = await initiate();
    const { reference, answer } = await paystack.payInto(instructions.accountNumber, kobo('50000.00'), paystackWebhook);
    expect(answer.status).toBe(200);
    const paid = await until(transactionId, (state) => state.payment !== undefined);
    expect(paid).toMatchObject({ status: 'pending', payment: { amount: '50000.00', payerReference: reference } });
    expect(paid.failing).toBeUndefined();
    // Its CNGN needs a live chain, which is not configured: the step refuses, never the sandbox's mint.
    expect(paid.mint).toBeUndefined();
    expect(await paymentOf(reference)).toEqual({ matched: 'onramp', transaction_id: transactionId, refund: null });
    // The same event resent: recorded once, nothing more.
    expect((await paystack.resendLast(paystackWebhook)).status).toBe(200);
    expect((await pool.query(`select count(*)::int as n from ramp.partner_events where provider = 'paystack' and reference = $1`, [reference])).rows[0].n).toBe(
      1,
    );

    // Another payment into the same account, with no on-ramp waiting on it: refunded through the partner at once.
    const second = await paystack.payInto(instructions.accountNumber, kobo('50000.00'), paystackWebhook);
    await eventually(
      () => paymentOf(second.reference),
      (row) => row?.refund === 'refunded',
    );
    expect(await paymentOf(second.reference)).toMatchObject({ matched: 'refund', transaction_id: null });
    expect(paystack.charges.get(second.reference)!.refunded).toBe(kobo('50000.00'));
    expect(paystack.charges.get(reference)!.refunded).toBe(0);
    expect((await stateOf(transactionId)).payment!.payerReference).toBe(reference);
  });

  it('refunds a payment of another amount through the partner and fails the on-ramp PAYMENT_AMOUNT_MISMATCH', async () => {
    const { transactionId, instructions } = await initiate();
    const { reference } = await paystack.payInto(instructions.accountNumber, kobo('49999.50'), paystackWebhook);
    const failed = await until(transactionId, (state) => state.status === 'failed');
    expect(failed).toMatchObject({ failureReason: 'PAYMENT_AMOUNT_MISMATCH', payment: { amount: '49999.50', payerReference: reference }, refund: reference });
    expect(paystack.charges.get(reference)!.refunded).toBe(kobo('49999.50'));
    expect(paystack.calls('/refund').filter((call) => (call.body as { transaction: string }).transaction === reference)).toHaveLength(1);
    const view = await keys[0]!.api.get(`/onramp/${transactionId}`);
    expect(view.body.data).toMatchObject({ status: 'failed', failureReason: 'PAYMENT_AMOUNT_MISMATCH' });
  });

  it('refunds a payment that came after the account expired, as the expired on-ramp’s', async () => {
    const { transactionId, instructions } = await initiate();
    await until(transactionId, (state) => state.status === 'failed', (windowSeconds + 20) * 1000);
    const { reference } = await paystack.payInto(instructions.accountNumber, kobo('50000.00'), paystackWebhook);
    const refunded = await until(transactionId, (state) => state.refund !== undefined);
    expect(refunded).toMatchObject({ status: 'failed', failureReason: 'PAYMENT_EXPIRED', payment: { payerReference: reference }, refund: reference });
    expect(paystack.charges.get(reference)!.refunded).toBe(kobo('50000.00'));
    expect(await paymentOf(reference)).toEqual({ matched: 'onramp', transaction_id: transactionId, refund: null });
  });

  it('holds a payment that fits open on-ramps of two organizations sharing a payer, touching neither', async () => {
    const customer = payer('shared');
    const first = await initiate(0, customer);
    const second = await initiate(1, customer);
    expect(second.instructions.accountNumber).toBe(first.instructions.accountNumber);
    const { reference } = await paystack.payInto(first.instructions.accountNumber, kobo('50000.00'), paystackWebhook);
    await eventually(
      () => paymentOf(reference),
      (row) => row !== undefined,
    );
    expect(await paymentOf(reference)).toEqual({ matched: 'hold', transaction_id: null, refund: null });
    for (const { transactionId } of [first, second]) expect((await stateOf(transactionId)).payment).toBeUndefined();
    expect(paystack.charges.get(reference)!.refunded).toBe(0);

    // The operator sees it, and gives it back through the partner, once, with their name recorded.
    const waiting = await operatorCommand(OPS, ['held'], opsEnv());
    expect(waiting.collections).toContainEqual(expect.objectContaining({ provider: 'paystack', reference, matched: 'hold', amount: '50000' }));
    const refunded = await operatorCommand(OPS, ['refund-collection', 'paystack', reference, '--operator', 'ops@example.com'], opsEnv());
    expect(refunded).toMatchObject({ reference, refund: 'refunded', operator: 'ops@example.com' });
    expect(paystack.charges.get(reference)!.refunded).toBe(kobo('50000.00'));
    expect(await operatorCommand(OPS, ['refund-collection', 'paystack', reference, '--operator', 'someone@example.com'], opsEnv())).toMatchObject({
      refund: 'refunded',
      already: true,
    });
    expect(refundCalls(reference)).toHaveLength(1);
    const resolved = await pool.query(`select resolved_by from ramp.collection_payments where reference = $1`, [reference]);
    expect(resolved.rows[0].resolved_by).toBe('ops@example.com');
    expect((await operatorCommand(OPS, ['held'], opsEnv())).collections).not.toContainEqual(expect.objectContaining({ reference }));
  });

  it("takes the partner's refund.failed to an operator, who refunds the on-ramp's payment again, once", async () => {
    const { transactionId, instructions } = await initiate();
    const { reference } = await paystack.payInto(instructions.accountNumber, kobo('100.00'), paystackWebhook);
    await until(transactionId, (state) => state.refund !== undefined);
    // The payment's own on-ramp refunds it; an operator may not refund it too.
    expect(await runCompiled(OPS, ['refund-collection', 'paystack', reference, '--operator', 'ops@example.com'], opsEnv())).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`paid the on-ramp ${transactionId}`),
    });
    // The bank fails the refund Paystack had accepted: nothing was given back.
    expect((await paystack.failRefund(reference, paystackWebhook)).status).toBe(200);
    await eventually(
      () => paymentOf(reference),
      (row) => row?.refund === 'rejected',
    );
    const metrics = await fetch(`${services.get('ramp')!.opsUrl}/metrics`).then((response) => response.text());
    expect(metrics).toMatch(/ramp_collections_total\{[^}]*provider="paystack",outcome="refund_failed"[^}]*\} [1-9]/);
    expect((await operatorCommand(OPS, ['held'], opsEnv())).collections).toContainEqual(
      expect.objectContaining({ reference, matched: 'onramp', refund: 'rejected' }),
    );
    expect(await operatorCommand(OPS, ['refund-collection', 'paystack', reference, '--operator', 'ops@example.com'], opsEnv())).toMatchObject({
      refund: 'refunded',
    });
    expect(paystack.charges.get(reference)!.refunded).toBe(kobo('100.00'));
    expect(refundCalls(reference)).toHaveLength(2);
  });

  it('keeps a payment into an account no on-ramp was given, unmatched, without refunding it', async () => {
    const customer = payer('stranger');
    // An account the partner opened for someone else's integration, never given to an on-ramp here.
    paystack.customers.set(customer.email, {
      id: 90_001,
      customer_code: 'CUS_stranger0001',
      email: customer.email,
      first_name: 'A',
      last_name: 'B',
      phone: '+2348030000000',
      account: '9199990001',
    });
    const { reference } = await paystack.payInto('9199990001', 100_000, paystackWebhook);
    await eventually(
      async () => (await pool.query(`select outcome from ramp.partner_events where provider = 'paystack' and reference = $1`, [reference])).rows[0]?.outcome,
      (outcome) => outcome === 'unmatched',
    );
    expect(await paymentOf(reference)).toBeUndefined();
    expect(paystack.charges.get(reference)!.refunded).toBe(0);

    // Listed for an operator, who refunds it: it is recorded as settled, so its event can never pay an on-ramp too.
    expect((await operatorCommand(OPS, ['held'], opsEnv())).unknownPayments).toContainEqual(expect.objectContaining({ provider: 'paystack', reference }));
    expect(await operatorCommand(OPS, ['refund-collection', 'paystack', reference, '--operator', 'ops@example.com'], opsEnv())).toMatchObject({
      refund: 'refunded',
    });
    expect(paystack.charges.get(reference)!.refunded).toBe(100_000);
    expect(await paymentOf(reference)).toEqual({ matched: 'hold', transaction_id: null, refund: 'refunded' });
    // Usage errors are 2, naming what is wrong; a payment that paid its on-ramp is not the operator's to refund.
    const bad = await runCompiled(OPS, ['refund-collection', 'paystack', reference], opsEnv());
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('--operator NAME is required') });
    const unknown = await runCompiled(OPS, ['refund-collection', 'paystack', 'T-none', '--operator', 'x'], opsEnv());
    expect(unknown).toMatchObject({ code: 2, stderr: expect.stringContaining('no payment into a collection account') });
  });
});
