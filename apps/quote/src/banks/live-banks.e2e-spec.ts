import { makeNuban } from '@ramp/banking';
import {
  ApiClient,
  createKey,
  expectError,
  FlutterwaveEmulator,
  PARTNER_CONTRACTS,
  PaystackEmulator,
  PrismProxy,
  startServices,
  stopAll,
  type ServiceProcess,
} from '@ramp/testing';

/**
 * Live keys' bank list and name enquiry through Paystack, then Flutterwave: the project's emulators, Paystack's behind Prism checking every request
 * and answer against Paystack's published contract (partners/paystack.yaml), the quote service and the gateway as
 * they run, a live key and a test key side by side.
 */
describe('live bank directory - Paystack, checked against its published contract', () => {
  const secretKey = `sk_live_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  // Carbon (100026) is left out of the emulated partner's list: a bank the partner does not list is not offered live.
  const emulator = new PaystackEmulator(secretKey, { unlisted: ['100026'] });
  // The second partner (NAME_ENQUIRY_PROVIDERS' default order: paystack, then flutterwave).
  const flutterwaveKey = `FLWSECK-${Math.random().toString(36).slice(2)}-X`;
  const flutterwave = new FlutterwaveEmulator(flutterwaveKey, 'unused-here');
  let prism: PrismProxy;
  let services: Map<string, ServiceProcess>;
  let live: ApiClient;
  let test: ApiClient;
  const gtb = makeNuban('058', '012345678');
  const kuda = makeNuban('090267', '112233445');

  beforeAll(async () => {
    await emulator.start();
    await flutterwave.start();
    prism = await PrismProxy.start(PARTNER_CONTRACTS.paystack, emulator.url);
    services = await startServices(['quote', 'gateway'], {
      PAYSTACK_BASE_URL: prism.url,
      PAYSTACK_SECRET_KEY: secretKey,
      FLUTTERWAVE_BASE_URL: `${flutterwave.url}/v3`,
      FLUTTERWAVE_SECRET_KEY: flutterwaveKey,
      PARTNER_TIMEOUT_MS: '2000',
      // Every line a service can write (tests run them silent), so that the secret key's absence from the logs means something.
      LOG_LEVEL: 'debug',
    });
    const gateway = `${services.get('gateway')!.url}/v1`;
    live = new ApiClient(gateway, (await createKey({ env: 'live' })).apiKey);
    test = new ApiClient(gateway, (await createKey()).apiKey);
    emulator.openAccount('058', gtb, 'CHIAMAKA ADAORA EZE');
    emulator.openAccount('090267', kuda, 'TUNDE BAKARE');
    flutterwave.openAccount('058', gtb, 'CHIAMAKA ADAORA EZE');
  });

  afterAll(async () => {
    await stopAll(services?.values() ?? []);
    await prism?.stop();
    await emulator.stop();
    await flutterwave.stop();
  });

  afterEach(() => {
    // Every call the adapter made, and every answer the emulator gave, conformed to Paystack's contract.
    expect(prism.violations).toEqual([]);
  });

  it("lists the banks the partner lists, under the platform's codes, fetched once and kept", async () => {
    const first = await live.get('/onramp/banks');
    expect(first.status).toBe(200);
    const codes = first.body.data.map((bank: { code: string }) => bank.code);
    expect(codes).toEqual(expect.arrayContaining(['058', '044', '090267']));
    // Not listed by the partner: not offered. Listed by the partner but unknown to the platform: not offered either.
    expect(codes).not.toContain('100026');
    expect(codes).not.toContain('999001');
    const listCalls = emulator.calls('/bank').length;
    expect(listCalls).toBeGreaterThanOrEqual(2); // more banks than a page of 100: the cursor was followed
    expect(emulator.calls('/bank')[0].query).toMatchObject({ country: 'nigeria', use_cursor: 'true', include_nip_sort_code: 'true' });
    expect((await live.get('/onramp/banks')).body.data).toEqual(first.body.data);
    expect(emulator.calls('/bank')).toHaveLength(listCalls);
    // A test key still gets the sandbox's list, with the bank the partner does not list.
    expect((await test.get('/onramp/banks')).body.data.map((bank: { code: string }) => bank.code)).toContain('100026');
  });

  it("resolves a live account's holder through the partner, under the partner's own code for the bank", async () => {
    const verified = await live.post('/onramp/banks/verify', { bankCode: '058', accountNumber: gtb });
    expect(verified.status).toBe(200);
    expect(verified.body.data).toEqual({ accountNumber: gtb, accountName: 'CHIAMAKA ADAORA EZE', bankCode: '058', bankName: 'Guaranty Trust Bank' });
    const fintech = await live.post('/onramp/banks/verify', { bankCode: '090267', accountNumber: kuda });
    expect(fintech.body.data).toMatchObject({ accountName: 'TUNDE BAKARE', bankCode: '090267' });
    expect(emulator.calls('/bank/resolve').at(-1)!.query).toEqual({ account_number: kuda, bank_code: emulator.paystackCodeOf('090267') });
    // The same account with a test key: the sandbox's name, the partner not asked.
    const asked = emulator.calls('/bank/resolve').length;
    const sandbox = await test.post('/onramp/banks/verify', { bankCode: '058', accountNumber: gtb });
    expect(sandbox.status).toBe(200);
    expect(sandbox.body.data.accountName).not.toBe('CHIAMAKA ADAORA EZE');
    expect(emulator.calls('/bank/resolve')).toHaveLength(asked);
  });

  it('checks the check digit before asking the partner, and says which field when the bank has no such account', async () => {
    const asked = emulator.calls('/bank/resolve').length;
    const wrongDigit = gtb.slice(0, 9) + String((Number(gtb[9]) + 1) % 10);
    expectError(await live.post('/onramp/banks/verify', { bankCode: '058', accountNumber: wrongDigit }), 400, 'INVALID_REQUEST', 'accountNumber');
    expect(emulator.calls('/bank/resolve')).toHaveLength(asked);
    const missing = await live.post('/onramp/banks/verify', { bankCode: '058', accountNumber: makeNuban('058', '555555555') });
    expectError(missing, 400, 'INVALID_REQUEST', 'accountNumber');
    expect(missing.body.error.reason).toBe('ACCOUNT_NOT_FOUND');
    expect(emulator.calls('/bank/resolve')).toHaveLength(asked + 1);
    const unlisted = await live.post('/onramp/banks/verify', { bankCode: '100026', accountNumber: makeNuban('100026', '123456789') });
    expectError(unlisted, 400, 'INVALID_REQUEST', 'bankCode');
    expect(emulator.calls('/bank/resolve')).toHaveLength(asked + 1);
  });

  it('retries a brief outage, asks the next partner through a long one, takes the failing one out of rotation, and answers 503 when none answers', async () => {
    const verify = () => live.post('/onramp/banks/verify', { bankCode: '058', accountNumber: gtb });
    emulator.failNext(2, 503);
    const through = await verify();
    expect(through.status).toBe(200);
    expect(through.body.data.accountName).toBe('CHIAMAKA ADAORA EZE');
    expect(flutterwave.calls('/v3/accounts/resolve')).toHaveLength(0);

    // Paystack down for good: each question goes to Flutterwave after Paystack's three attempts...
    emulator.failNext(1_000, 503);
    for (let question = 1; question <= 5; question++) {
      const answered = await verify();
      expect(answered.status).toBe(200);
      expect(answered.body.data.accountName).toBe('CHIAMAKA ADAORA EZE');
      expect(flutterwave.calls('/v3/accounts/resolve')).toHaveLength(question);
    }
    expect(flutterwave.calls('/v3/accounts/resolve')[0]!.body).toEqual({ account_number: gtb, account_bank: '058' });
    // ...until five in a row open Paystack's circuit: it is no longer asked.
    const paystackAsked = emulator.calls('/bank/resolve').length;
    expect((await verify()).status).toBe(200);
    expect(emulator.calls('/bank/resolve')).toHaveLength(paystackAsked);

    // Neither answers: 503, never a made-up name.
    flutterwave.failNext(3, 503);
    const down = await verify();
    expectError(down, 503, 'SERVICE_UNAVAILABLE');
    expect(JSON.stringify(down.body)).not.toContain('CHIAMAKA');
    expect((await verify()).body.data.accountName).toBe('CHIAMAKA ADAORA EZE');
    emulator.failNext(0);
  });

  it("counts every partner call by outcome, and never writes the partner's secret key to a log or an answer", async () => {
    const metrics = await (await fetch(`${services.get('quote')!.opsUrl}/metrics`)).text();
    const count = (call: string, outcome: string, provider = 'paystack') =>
      metrics
        .split('\n')
        .filter((line) => line.startsWith('ramp_partner_call_duration_seconds_count{'))
        .filter((line) => [`provider="${provider}"`, `call="${call}"`, `outcome="${outcome}"`].every((label) => line.includes(label)))
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    expect(count('bank_resolve', 'ok')).toBe(3);
    expect(count('bank_resolve', 'refused')).toBe(1);
    // The brief outage (2) and five questions of three attempts each while Paystack was down.
    expect(count('bank_resolve', 'unavailable')).toBe(17);
    expect(count('accounts_resolve', 'ok', 'flutterwave')).toBe(7);
    expect(count('accounts_resolve', 'unavailable', 'flutterwave')).toBe(3);
    expect(count('bank_list', 'ok')).toBeGreaterThanOrEqual(2);
    for (const service of services.values()) {
      expect(service.logRecords.length).toBeGreaterThan(0);
      for (const secret of [secretKey, flutterwaveKey]) expect(service.logs + JSON.stringify(service.logRecords)).not.toContain(secret);
    }
  });
});
