import { Pool } from 'pg';
import { makeNuban, payoutReference } from '@ramp/banking';
import { newId, type Tenant } from '@ramp/contracts';
import { EventLog, handleCommand, type StoredEvent } from '@ramp/event-store';
import { JobQueue } from '@ramp/process-kit';
import { nextOfframpStep, offrampDecider, offrampView, type OfframpCommand, type OfframpEvent, type OfframpState } from '@ramp/ramping';
import {
  ApiClient,
  createKey,
  eventually,
  FlutterwaveEmulator,
  makeTestCertificates,
  PARTNER_CONTRACTS,
  PaystackEmulator,
  PrismProxy,
  operatorCommand,
  runCompiled,
  startServices,
  stopAll,
  TEST_DATABASE_URL,
  WebhookReceiver,
  type ServiceProcess,
} from '@ramp/testing';
import { liveOfframpQuote } from './live-offramp.spec-helper';

/**
 * A live off-ramp's payout through the real ramp service and gateway, against the project's Paystack emulator behind
 * Prism (Paystack's published contract checks every request and answer) and its Flutterwave emulator. A live off-ramp
 * cannot be quoted yet (live chains are issue 28), so each test writes one as initiation and its deposit and swap
 * leave it (non-custodial, its deposit received, swapped to CNGN) and schedules its payout, then lets the service pay.
 */
describe('live payouts - an off-ramp paid by a bank partner, never twice', () => {
  const paystack = new PaystackEmulator(`sk_live_${Math.random().toString(36).slice(2)}`);
  const flutterwave = new FlutterwaveEmulator(`FLWSECK-${Math.random().toString(36).slice(2)}-X`, `hash-${Math.random().toString(36).slice(2)}`);
  const pool = new Pool({ connectionString: TEST_DATABASE_URL });
  const log = new EventLog('ramp');
  const jobs = new JobQueue(pool, 'ramp');
  const certificates = makeTestCertificates();
  const secrets = new Map<string, string>();
  const receiver = new WebhookReceiver(certificates, { secretFor: (path) => secrets.get(path) });
  let tenant: Tenant;
  let liveKey: string;
  let prism: PrismProxy;

  const at = () => new Date().toISOString();

  async function command(transactionId: string, cmd: OfframpCommand, schedule = false): Promise<void> {
    const streamId = `offramp-${transactionId}`;
    await handleCommand(pool, log, {
      streamId,
      decider: offrampDecider,
      command: cmd,
      metadata: { correlationId: transactionId, causationId: 'test', actor: 'test', tenant },
      viewOf: offrampView,
      alsoInTransaction: async (tx, appended, next) => {
        if (schedule) await jobs.schedule(tx, streamId, nextOfframpStep(next).kind, appended.at(-1)!.streamVersion, new Date());
      },
    });
  }

  /** A live off-ramp as its initiation, deposit and swap leave it, its payout's job due now. */
  /** A live off-ramp whose deposit arrived and was swapped (on the live chain with `onchain`: its tokens are CNGN now). */
  async function swappedOfframp(settlement?: 'onchain'): Promise<{ transactionId: string; reference: (attempt: number) => string }> {
    const transactionId = newId('txn');
    const accountNumber = makeNuban('058', String(100_000_000 + Math.floor(Math.random() * 899_999_999)));
    await command(transactionId, {
      type: 'initiate',
      data: {
        transactionId,
        tenant,
        quote: { ...liveOfframpQuote(accountNumber, at()), quoteId: newId('qt') },
        walletId: null,
        sourceAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
        depositAddress: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
        depositExpiresAt: new Date(Date.now() + 3_600_000).toISOString(),
        reference: `order-${transactionId.slice(-6)}`,
        callbackUrl: null,
        ...(settlement && { settlement }),
        at: at(),
      },
    });
    await command(transactionId, { type: 'recordDeposit', amount: '100', transactionHash: `0x${'d'.repeat(64)}`, tokenSymbol: 'USDC', at: at() });
    await command(transactionId, { type: 'recordSwap', ok: true, cngnAmount: '149250', transactionHash: `0x${'5'.repeat(64)}`, at: at() }, true);
    return { transactionId, reference: (attempt) => payoutReference(transactionId, attempt) };
  }

  const eventsOf = async (transactionId: string) => (await log.readStream(pool, `offramp-${transactionId}`)) as unknown as StoredEvent<OfframpEvent['type']>[];
  const stateOf = async (transactionId: string): Promise<OfframpState> =>
    (await eventsOf(transactionId)).reduce((state, event) => offrampDecider.evolve(state, event as unknown as OfframpEvent), offrampDecider.initialState);
  const until = (transactionId: string, done: (state: OfframpState) => boolean, ms = 30_000) => eventually(() => stateOf(transactionId), done, ms);
  const attemptsOf = (state: OfframpState) => (state.payoutAttempts ?? []).map((attempt) => [attempt.attempt, attempt.provider, attempt.state]);
  const paystackTransfers = (reference: string) => paystack.calls('/transfer').filter((call) => (call.body as { reference?: string }).reference === reference);

  beforeAll(async () => {
    await Promise.all([paystack.start(), flutterwave.start(), receiver.start()]);
    prism = await PrismProxy.start(PARTNER_CONTRACTS.paystack, paystack.url);
    // The off-ramps are this live key's, as if it had initiated them: its webhooks hear of them.
    const key = await createKey({ env: 'live' });
    tenant = { organizationId: key.organizationId, environment: 'live', keyId: key.keyId };
    liveKey = key.apiKey;
  });

  afterAll(async () => {
    await prism?.stop();
    await Promise.all([paystack.stop(), flutterwave.stop(), receiver.stop()]);
    await pool.end();
  });

  afterEach(() => expect(prism.violations).toEqual([]));

  const partnersEnv = (verifyMs: number) => ({
    PAYSTACK_SECRET_KEY: paystack.secretKey,
    PAYSTACK_BASE_URL: prism.url,
    FLUTTERWAVE_SECRET_KEY: flutterwave.secretKey,
    FLUTTERWAVE_BASE_URL: `${flutterwave.url}/v3`,
    FLUTTERWAVE_WEBHOOK_HASH: flutterwave.webhookHash,
    PAYOUT_VERIFY_MS: String(verifyMs),
  });

  describe("moved on by the partners' events alone (PAYOUT_VERIFY_MS of 10 minutes)", () => {
    let services: Map<string, ServiceProcess>;
    let paystackWebhook: string;
    let flutterwaveWebhook: string;

    beforeAll(async () => {
      services = await startServices(['ramp', 'notifier', 'gateway'], {
        ...partnersEnv(600_000),
        LOG_LEVEL: 'info',
        LIVE_PROVIDERS_ENABLED: 'true',
        WEBHOOK_ALLOW_HOSTS: 'localhost',
        WEBHOOK_CA_FILE: certificates.caFile,
      });
      const gateway = services.get('gateway')!;
      const api = new ApiClient(`${gateway.url}/v1`, liveKey);
      for (const [path, events] of [
        ['/reversals', ['offramp.payout_reversed']],
        ['/everything', ['*']],
      ] as const) {
        const created = await api.post('/webhooks', { url: receiver.url(path), events });
        expect(created.status).toBe(201);
        secrets.set(path, created.body.data.secret);
      }
      paystackWebhook = `${gateway.url}/partners/paystack/webhook`;
      flutterwaveWebhook = `${gateway.url}/partners/flutterwave/webhook`;
    });

    afterAll(async () => {
      await stopAll(services?.values() ?? []);
    });

    it('records the attempt, sends one transfer in kobo under its reference, and completes when transfer.success arrives', async () => {
      const { transactionId, reference } = await swappedOfframp();
      const pending = await until(transactionId, (state) => state.payoutAttempts?.[0]?.state === 'pending');
      expect(attemptsOf(pending)).toEqual([[1, 'paystack', 'pending']]);
      expect(paystackTransfers(reference(1))).toHaveLength(1);
      expect(paystack.transfers.get(reference(1))).toMatchObject({ amount: 14_901_075, status: 'pending' });
      // Its first look at the partner (at once, still pending) is made; after it, nothing but the event moves it on
      // within the 10 minutes of PAYOUT_VERIFY_MS.
      const verifies = () => paystack.calls(`/transfer/verify/${reference(1)}`).length;
      await eventually(
        async () => verifies(),
        (count) => count === 1,
      );
      expect((await paystack.settle(reference(1), 'success', paystackWebhook))!.status).toBe(200);
      const done = await until(transactionId, (state) => state.status === 'completed');
      expect(done.payout).toEqual({ payoutReference: reference(1) });
      expect(attemptsOf(done)).toEqual([[1, 'paystack', 'paid']]);
      // The ask was written before the transfer was asked for; the event woke one more look, whose answer was recorded.
      expect(verifies()).toBe(2);
      const attempted = (await eventsOf(transactionId)).filter((event) => event.type === 'offramp.payout_attempted').map((event) => event.data);
      expect(attempted).toEqual([
        expect.objectContaining({ state: 'unknown', sends: 1, sending: true }),
        expect.objectContaining({ state: 'pending', sends: 1 }),
        expect.objectContaining({ state: 'paid', sends: 1 }),
      ]);
      expect(paystackTransfers(reference(1))).toHaveLength(1);
    });

    it("moves to Flutterwave only once Paystack's transfer is known failed, and completes by Flutterwave's event", async () => {
      const { transactionId, reference } = await swappedOfframp();
      await until(transactionId, (state) => state.payoutAttempts?.[0]?.state === 'pending');
      await paystack.settle(reference(1), 'failed', paystackWebhook);
      const second = await until(transactionId, (state) => state.payoutAttempts?.[1]?.state === 'pending');
      expect(attemptsOf(second)).toEqual([
        [1, 'paystack', 'failed'],
        [2, 'flutterwave', 'pending'],
      ]);
      expect(flutterwave.transfers.get(reference(2))).toMatchObject({ amount: 149010.75, bank_code: '058' });
      expect(paystack.transfers.has(reference(2))).toBe(false);
      await flutterwave.settle(reference(2), 'SUCCESSFUL', flutterwaveWebhook);
      const done = await until(transactionId, (state) => state.status === 'completed');
      expect(done.payout).toEqual({ payoutReference: reference(2) });
    });

    it('holds a paid off-ramp whose payout the bank sent back (transfer.reversed) for an operator, once, and tells the integrator', async () => {
      const { transactionId, reference } = await swappedOfframp();
      await until(transactionId, (state) => state.payoutAttempts?.[0]?.state === 'pending');
      await paystack.settle(reference(1), 'success', paystackWebhook);
      await until(transactionId, (state) => state.status === 'completed');
      await paystack.settle(reference(1), 'reversed', paystackWebhook);
      const reversed = await until(transactionId, (state) => state.payoutReversal !== undefined);
      expect(reversed).toMatchObject({
        status: 'completed',
        payoutReversal: { provider: 'paystack', payoutReference: reference(1), amount: '149010.75' },
      });
      expect(attemptsOf(reversed)).toEqual([[1, 'paystack', 'reversed']]);
      const ramp = services.get('ramp')!;
      await eventually(
        async () => ramp.logRecords,
        (records) => records.some((record) => record.transactionId === transactionId && String(record.msg).includes('held for an operator')),
      );
      // Processed again (as after a crash before its mark): nothing more is recorded, logged or counted.
      const reprocessed = await pool.query(
        `update ramp.partner_events set processed_at = null, next_attempt_at = now() where reference = $1 and event = 'transfer.reversed' returning id`,
        [reference(1)],
      );
      expect(reprocessed.rowCount).toBe(1);
      await eventually(
        async () =>
          (await pool.query(`select processed_at from ramp.partner_events where reference = $1 and event = 'transfer.reversed'`, [reference(1)])).rows[0],
        (row) => row?.processed_at !== null,
        15_000,
      );
      expect((await eventsOf(transactionId)).filter((event) => event.type === 'offramp.payout_reversed')).toHaveLength(1);
      expect(ramp.logRecords.filter((record) => record.transactionId === transactionId && String(record.msg).includes('held for an operator'))).toHaveLength(1);
      const metrics = await (await fetch(`${ramp.opsUrl}/metrics`)).text();
      expect(metrics).toMatch(/ramp_payouts_total\{[^}]*provider="paystack"[^}]*outcome="reversed"[^}]*\} 1/);
      // The integrator's webhook that names offramp.payout_reversed hears of it, signed; one on `*` does not.
      const [told] = await eventually(
        async () => receiver.on('/reversals').filter((delivery) => delivery.body?.data?.transactionId === transactionId),
        (deliveries) => deliveries.length > 0,
      );
      expect(told!.signatureValid).toBe(true);
      expect(told!.body).toEqual({
        event: 'offramp.payout_reversed',
        timestamp: expect.any(String),
        data: {
          transactionId,
          reference: `order-${transactionId.slice(-6)}`,
          type: 'offramp',
          status: 'completed',
          payoutAmount: '149010.75',
          fiatCurrency: 'NGN',
          payoutReference: reference(1),
          metadata: { eventId: expect.any(String) },
        },
      });
      const everything = receiver.on('/everything').filter((delivery) => delivery.body?.data?.transactionId === transactionId);
      expect(everything.map((delivery) => delivery.body.event)).not.toContain('offramp.payout_reversed');
    });

    it('holds an off-ramp whose payout is reversed before its payment was recorded, and tells the integrator', async () => {
      const { transactionId, reference } = await swappedOfframp();
      await until(transactionId, (state) => state.payoutAttempts?.[0]?.state === 'pending');
      // The bank paid and sent it back before the platform looked again: only the reversal's event arrives.
      await paystack.settle(reference(1), 'success');
      await paystack.settle(reference(1), 'reversed', paystackWebhook);
      const held = await until(transactionId, (state) => state.payoutReversal !== undefined);
      expect(held).toMatchObject({ status: 'pending', payoutReversal: { payoutReference: reference(1) } });
      expect(held.payout).toBeUndefined();
      await eventually(
        async () => receiver.on('/reversals').filter((delivery) => delivery.body?.data?.transactionId === transactionId),
        (deliveries) => deliveries.length === 1 && deliveries[0]!.body.data.status === 'pending',
      );
      // Nothing more runs on it: it is not completed, and nothing is sent again.
      await new Promise((settle) => setTimeout(settle, 500));
      expect((await stateOf(transactionId)).status).toBe('pending');
      expect(paystackTransfers(reference(1))).toHaveLength(1);
      expect(flutterwave.transfers.has(reference(2))).toBe(false);
    });

    it("takes no signed event's word: a success or a reversal the partner does not confirm pays out nothing and holds nothing", async () => {
      const { transactionId, reference } = await swappedOfframp();
      await until(transactionId, (state) => state.payoutAttempts?.[0]?.state === 'pending');
      const verifies = () => paystack.calls(`/transfer/verify/${reference(1)}`).length;
      await eventually(
        async () => verifies(),
        (count) => count === 1,
      );
      // Signed with the partner's key (a replay of another transfer's body under this reference, a stale or a buggy
      // event): the partner itself still says pending.
      const body = { ...paystack.transferView(paystack.transfers.get(reference(1))!), amount: 1 };
      expect((await paystack.sendEvent(paystackWebhook, 'transfer.success', { ...body, status: 'success' })).status).toBe(200);
      await eventually(
        async () => verifies(),
        (count) => count === 2,
      );
      expect((await paystack.sendEvent(paystackWebhook, 'transfer.reversed', { ...body, status: 'reversed' })).status).toBe(200);
      const reversal = await eventually(
        async () =>
          (
            await pool.query<{ outcome: string | null; last_error: string | null }>(
              `select outcome, last_error from ramp.partner_events where reference = $1 and event = 'transfer.reversed'`,
              [reference(1)],
            )
          ).rows[0],
        (row) => row?.outcome === 'failed',
      );
      expect(reversal!.last_error).toContain('says it is pending');
      const state = await stateOf(transactionId);
      expect(attemptsOf(state)).toEqual([[1, 'paystack', 'pending']]);
      expect([state.status, state.payout, state.payoutReversal]).toEqual(['pending', undefined, undefined]);
      expect(paystackTransfers(reference(1))).toHaveLength(1);
    });

    it('keeps an event for a reference the platform never made as unmatched, and changes nothing', async () => {
      const stranger = `txn_${'0'.repeat(26)}-payout-1`;
      const answer = await paystack.sendEvent(paystackWebhook, 'transfer.success', {
        reference: stranger,
        status: 'success',
        amount: 100,
        transfer_code: 'TRF_x',
      });
      expect(answer.status).toBe(200);
      const outcome = await eventually(
        async () => (await pool.query<{ outcome: string | null }>('select outcome from ramp.partner_events where reference = $1', [stranger])).rows[0]?.outcome,
        (value) => value === 'unmatched',
      );
      expect(outcome).toBe('unmatched');
    });
  });

  describe('found out by asking the partner (PAYOUT_VERIFY_MS of 1.5 s)', () => {
    let services: Map<string, ServiceProcess>;

    beforeAll(async () => {
      services = await startServices(['ramp', 'gateway'], partnersEnv(1_500));
    });

    afterAll(async () => {
      await stopAll(services?.values() ?? []);
    });

    it('completes a payout whose event is lost, by verify', async () => {
      const { transactionId, reference } = await swappedOfframp();
      await until(transactionId, (state) => state.payoutAttempts?.[0]?.state === 'pending');
      await paystack.settle(reference(1), 'success');
      const done = await until(transactionId, (state) => state.status === 'completed');
      expect(done.payout).toEqual({ payoutReference: reference(1) });
    });

    it('sends exactly one transfer through a partner outage and a lost answer', async () => {
      // The partner is down for the first asks of the transfer; then it carries one out and its answer is lost.
      paystack.failNext(3, 503, '/transfer');
      paystack.loseNextAnswers(1, '/transfer');
      const { transactionId, reference } = await swappedOfframp();
      const done = await eventually(
        async () => {
          const state = await stateOf(transactionId);
          if (state.payoutAttempts?.[0]?.state === 'pending' && paystack.transfers.get(reference(1))?.status === 'pending')
            await paystack.settle(reference(1), 'success');
          return state;
        },
        (state) => state.status === 'completed',
        60_000,
        200,
      );
      expect(attemptsOf(done)).toEqual([[1, 'paystack', 'paid']]);
      // Asked at least five times (three refused by the outage, the one whose answer was lost, the duplicate after it).
      expect(paystackTransfers(reference(1)).length).toBeGreaterThanOrEqual(5);
      expect([...paystack.transfers.keys()].filter((key) => key.startsWith(transactionId.toLowerCase()))).toEqual([reference(1)]);
      expect(flutterwave.transfers.has(reference(1)) || flutterwave.transfers.has(reference(2))).toBe(false);
    });

    it('never sends elsewhere a payout refused after an unanswered ask, though the partner cannot find it for a while', async () => {
      const { transactionId, reference } = await swappedOfframp();
      // The transfer is made but every answer to the first ask is lost; the partner's look-up lags and finds nothing.
      paystack.hiddenFromLookUp.add(reference(1));
      paystack.loseNextAnswers(3, '/transfer');
      const ramp = services.get('ramp')!;
      // The next ask is refused as a duplicate and looked up in vain: unresolved, asked again, never sent elsewhere.
      await eventually(
        async () => (await fetch(`${ramp.opsUrl}/metrics`)).text(),
        (metrics) => /ramp_payouts_total\{[^}]*provider="paystack"[^}]*outcome="unresolved"[^}]*\} [1-9]/.test(metrics),
        30_000,
      );
      const unresolved = await stateOf(transactionId);
      expect(attemptsOf(unresolved)).toEqual([[1, 'paystack', 'unknown']]);
      expect(unresolved.payoutAttempts![0]!.sends).toBeGreaterThanOrEqual(2);
      // The partner finds it again: it is the one transfer, and it pays.
      paystack.hiddenFromLookUp.delete(reference(1));
      await until(transactionId, (state) => state.payoutAttempts?.[0]?.state === 'pending', 60_000);
      await paystack.settle(reference(1), 'success');
      const done = await until(transactionId, (state) => state.status === 'completed');
      expect(attemptsOf(done)).toEqual([[1, 'paystack', 'paid']]);
      expect(paystack.transfers.has(reference(2)) || flutterwave.transfers.has(reference(2))).toBe(false);
      expect([...paystack.transfers.keys()].filter((key) => key.startsWith(transactionId.toLowerCase()))).toEqual([reference(1)]);
    });

    it("waits, and does not fail, while the partner's balance does not cover the payout; pays once it is topped up", async () => {
      const balance = paystack.balanceKobo;
      paystack.balanceKobo = 1_000_00;
      const { transactionId, reference } = await swappedOfframp();
      const ramp = services.get('ramp')!;
      await eventually(
        async () => (await fetch(`${ramp.opsUrl}/metrics`)).text(),
        (metrics) => /ramp_payouts_total\{[^}]*provider="paystack"[^}]*outcome="waiting_for_balance"[^}]*\} [1-9]/.test(metrics),
      );
      const waiting = await stateOf(transactionId);
      expect(waiting.status).toBe('pending');
      expect(waiting.payoutAttempts ?? []).toEqual([]);
      expect(paystack.transfers.has(reference(1))).toBe(false);
      paystack.balanceKobo = balance;
      await until(transactionId, (state) => state.payoutAttempts?.[0]?.state === 'pending');
      await paystack.settle(reference(1), 'success');
      await until(transactionId, (state) => state.status === 'completed');
    });

    it('fails the off-ramp (PAYOUT_REJECTED) only once every attempt is known to have paid nothing', async () => {
      const { transactionId, reference } = await swappedOfframp();
      for (const attempt of [1, 3]) {
        await until(transactionId, (state) => state.payoutAttempts?.[attempt - 1]?.state === 'pending');
        await paystack.settle(reference(attempt), 'failed');
        if (attempt === 1) {
          await until(transactionId, (state) => state.payoutAttempts?.[1]?.state === 'pending');
          await flutterwave.settle(reference(2), 'FAILED');
        }
      }
      const failing = await until(transactionId, (state) => state.failing !== undefined);
      expect(attemptsOf(failing)).toEqual([
        [1, 'paystack', 'failed'],
        [2, 'flutterwave', 'failed'],
        [3, 'paystack', 'failed'],
      ]);
      expect(failing.failureReason).toBe('PAYOUT_REJECTED');
      expect(failing.payout).toBeUndefined();
    });
  });

  describe("above LIVE_APPROVAL_ABOVE_NGN (100,000): waits for an operator's approval", () => {
    let services: Map<string, ServiceProcess>;
    const OPS = 'dist/apps/ramp/src/cli/ops.js';
    const opsEnv = { DATABASE_URL: TEST_DATABASE_URL };

    beforeAll(async () => {
      services = await startServices(['ramp', 'gateway'], { ...partnersEnv(1_500), LIVE_APPROVAL_ABOVE_NGN: '100000' });
    });

    afterAll(async () => {
      await stopAll(services?.values() ?? []);
    });

    it('asks no partner until `ops approve` names who approved, then pays once; a second approval changes nothing', async () => {
      // 149,010.75 NGN to pay, above the threshold.
      const { transactionId, reference } = await swappedOfframp();
      const waiting = await until(transactionId, (state) => state.approval?.required !== undefined);
      expect(waiting.approval).toEqual({ required: { amountNgn: '149010.75', thresholdNgn: '100000', at: expect.any(String) } });
      const listed = await operatorCommand<{ awaitingApproval: { transactionId: string; kind: string; amountNgn: string }[] }>(OPS, ['held'], opsEnv);
      expect(listed.awaitingApproval).toContainEqual({
        transactionId,
        kind: 'offramp',
        amountNgn: '149010.75',
        thresholdNgn: '100000',
        at: expect.any(String),
      });
      // The step looks again by itself (every minute) and keeps waiting: no partner is asked, no attempt recorded.
      await new Promise((wait) => setTimeout(wait, 2_000));
      expect(paystackTransfers(reference(1))).toEqual([]);
      expect((await stateOf(transactionId)).payoutAttempts).toBeUndefined();

      // Refused without a name, or for an id that is no ramp of the platform (the decider refuses one that does not wait).
      expect((await runCompiled(OPS, ['approve', transactionId], opsEnv)).code).toBe(2);
      const unknown = await runCompiled(OPS, ['approve', newId('txn'), '--operator', 'Ada Obi'], opsEnv);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/is no on-ramp or off-ramp/);

      const approved = await operatorCommand(OPS, ['approve', transactionId, '--operator', 'Ada Obi'], opsEnv);
      expect(approved).toEqual({ transactionId, kind: 'offramp', approved: { operator: 'Ada Obi', at: expect.any(String) } });
      const events = await eventsOf(transactionId);
      expect(events.find((event) => event.type === 'offramp.approved')).toMatchObject({
        data: { operator: 'Ada Obi' },
        metadata: { actor: 'operator:Ada Obi' },
      });
      // Woken at once, not a minute later: the payout is asked of Paystack, once.
      await until(transactionId, (state) => state.payoutAttempts?.[0]?.state === 'pending', 10_000);
      expect(paystackTransfers(reference(1))).toHaveLength(1);
      expect(await operatorCommand(OPS, ['approve', transactionId, '--operator', 'Someone Else'], opsEnv)).toEqual({
        transactionId,
        kind: 'offramp',
        approved: { operator: 'Ada Obi', at: expect.any(String) },
        already: true,
      });
      await paystack.settle(reference(1), 'success');
      await until(transactionId, (state) => state.status === 'completed');
      expect((await operatorCommand<{ awaitingApproval: { transactionId: string }[] }>(OPS, ['held'], opsEnv)).awaitingApproval).not.toContainEqual(
        expect.objectContaining({ transactionId }),
      );
    });

    it('`ops reject` declines a payout swapped on chain: held for an operator, asked of no partner, and no longer awaiting approval', async () => {
      const { transactionId, reference } = await swappedOfframp('onchain');
      await until(transactionId, (state) => state.approval?.required !== undefined);
      // A reason is required: it is recorded for operators (the integrator is never shown it).
      const unexplained = await runCompiled(OPS, ['reject', transactionId, '--operator', 'Ada Obi'], opsEnv);
      expect(unexplained.code).toBe(2);
      expect(unexplained.stderr).toMatch(/--reason TEXT is required/);
      const rejected = await operatorCommand(OPS, ['reject', transactionId, '--operator', 'Ada Obi', '--reason', 'beneficiary under review'], opsEnv);
      expect(rejected).toEqual({
        transactionId,
        kind: 'offramp',
        rejected: { operator: 'Ada Obi', reason: 'beneficiary under review', at: expect.any(String) },
      });
      const events = await eventsOf(transactionId);
      expect(events.find((event) => event.type === 'offramp.approval_rejected')).toMatchObject({
        data: { operator: 'Ada Obi', reason: 'beneficiary under review' },
        metadata: { actor: 'operator:Ada Obi' },
      });
      // Its USDC is CNGN in the hot wallet: held (still pending), not refunded, and nothing is asked of a partner.
      const heldState = await until(transactionId, (state) => state.payoutHeld !== undefined);
      expect(heldState).toMatchObject({ status: 'pending', payoutHeld: { errorMessage: 'Declined in review by Ada Obi: beneficiary under review' } });
      expect(heldState.failing).toBeUndefined();
      await new Promise((wait) => setTimeout(wait, 2_000));
      expect(paystackTransfers(reference(1))).toEqual([]);
      // Listed where an operator settles it, no longer among what awaits an approval; a second decision is refused.
      const listed = await operatorCommand<{ awaitingApproval: { transactionId: string }[]; heldPayouts: { transactionId: string }[] }>(OPS, ['held'], opsEnv);
      expect(listed.heldPayouts).toContainEqual(expect.objectContaining({ transactionId }));
      expect(listed.awaitingApproval).not.toContainEqual(expect.objectContaining({ transactionId }));
      const approvedAfter = await runCompiled(OPS, ['approve', transactionId, '--operator', 'Someone Else'], opsEnv);
      expect(approvedAfter.code).toBe(1);
      expect(JSON.parse(approvedAfter.stdout)).toMatchObject({ transactionId, refused: expect.any(String) });
    });
  });
});
