import { makeNuban, payoutReference } from '@ramp/banking';
import { FlutterwaveEmulator, PARTNER_CONTRACTS, PaystackEmulator, PrismProxy } from '@ramp/testing';
import { FlutterwaveClient } from './flutterwave';
import { PartnerBankDirectory } from './partner-bank-directory';
import { flutterwaveBanks, paystackBanks } from './partners-config';
import { PaystackClient } from './paystack';
import { FlutterwavePayouts, PaystackPayouts, type PayoutRequest } from './payouts';

/**
 * Paystack payouts against the project's emulator behind Prism (partners/paystack.yaml): every request the adapter
 * sends and every answer the emulator gives is checked against Paystack's published contract.
 */
describe('PaystackPayouts - transfers that can never pay twice, checked against the published contract', () => {
  const secretKey = 'sk_live_payouts_test_key';
  const emulator = new PaystackEmulator(secretKey);
  let prism: PrismProxy;
  let payouts: PaystackPayouts;
  let attempt = 0;
  const account = makeNuban('058', '246813579');

  const request = (overrides: Partial<PayoutRequest> = {}): PayoutRequest => ({
    reference: payoutReference(`txn_01JPAYOUTTEST${Date.now()}`, ++attempt),
    bankCode: '058',
    accountNumber: account,
    accountName: 'NGOZI OKAFOR',
    amount: '149010.75',
    narration: 'off-ramp payout',
    ...overrides,
  });

  beforeAll(async () => {
    await emulator.start();
    prism = await PrismProxy.start(PARTNER_CONTRACTS.paystack, emulator.url);
    const client = new PaystackClient({ baseUrl: prism.url, secretKey, timeoutMs: 5000, backoffMs: 20 });
    payouts = new PaystackPayouts(client, new PartnerBankDirectory(paystackBanks(client)));
  });

  afterAll(async () => {
    await prism?.stop();
    await emulator.stop();
  });

  afterEach(() => expect(prism.violations).toEqual([]));

  it('sends a transfer from the balance in kobo under the reference, to one recipient per account, and reads its outcome', async () => {
    const balanceBefore = emulator.balanceKobo;
    const first = request();
    expect(await payouts.send(first)).toEqual({ state: 'pending', partnerReference: expect.stringMatching(/^TRF_/) });
    const transfer = emulator.transfers.get(first.reference)!;
    expect(transfer).toMatchObject({ amount: 14_901_075, reason: 'off-ramp payout', status: 'pending' });
    expect(emulator.calls('/transfer').at(-1)!.body).toMatchObject({ source: 'balance', currency: 'NGN', amount: 14_901_075, reference: first.reference });
    expect(emulator.balanceKobo).toBe(balanceBefore - 14_901_075);
    expect(await payouts.balance()).toBe((Number(emulator.balanceKobo) / 100).toFixed(2).replace(/\.?0+$/, ''));

    await payouts.send(request({ amount: '10' }));
    expect(emulator.calls('/transferrecipient')).toHaveLength(1);
    expect(emulator.calls('/transferrecipient')[0]!.body).toMatchObject({ type: 'nuban', account_number: account, bank_code: '058', currency: 'NGN' });

    await emulator.settle(first.reference, 'success');
    expect(await payouts.verify(first.reference)).toMatchObject({ state: 'paid' });
  });

  it('pays exactly once when Paystack did the transfer and the answer was lost, and when it was down then back', async () => {
    const kobo = 14_901_075;
    const lost = request();
    const before = emulator.balanceKobo;
    emulator.loseNextAnswers(1);
    const result = await payouts.send(lost);
    // The retry under the same reference met "Duplicate Transfer Reference", and the transfer was looked up.
    expect(result.state).toBe('pending');
    expect(emulator.calls('/transfer').filter((call) => (call.body as { reference: string }).reference === lost.reference)).toHaveLength(2);
    expect(emulator.balanceKobo).toBe(before - kobo);

    // The same, where Paystack checks the balance before the reference: the retry is refused for a balance the first
    // attempt emptied, which is no proof that nothing was paid; the transfer is looked up and found.
    emulator.checksBalanceFirst = true;
    emulator.balanceKobo = kobo;
    const drained = request();
    emulator.loseNextAnswers(1);
    expect(await payouts.send(drained)).toMatchObject({ state: 'pending' });
    expect(emulator.balanceKobo).toBe(0);
    emulator.checksBalanceFirst = false;
    emulator.balanceKobo = 100_000_000_00;

    const down = request();
    emulator.failNext(2, 503);
    expect((await payouts.send(down)).state).toBe('pending');
    expect(emulator.balanceKobo).toBe(100_000_000_00 - kobo);

    // Down through every attempt: unknown, never taken for "nothing happened", and not found when looked up at once
    // (still unknown); sending the same reference again, once Paystack is back, settles it with exactly one transfer.
    const unknown = request();
    emulator.failNext(3, 503);
    expect(await payouts.send(unknown)).toMatchObject({ state: 'unknown' });
    expect(await payouts.verify(unknown.reference)).toMatchObject({ state: 'unknown', reason: expect.stringContaining('no transfer') });
    expect(await payouts.send(unknown)).toMatchObject({ state: 'pending' });
    expect(await payouts.send(unknown)).toMatchObject({ state: 'pending' });
    expect(emulator.balanceKobo).toBe(100_000_000_00 - 2 * kobo);
  });

  it('holds a payout whose reference the partner knows for another amount', async () => {
    const first = request({ amount: '10' });
    expect(await payouts.send(first)).toMatchObject({ state: 'pending' });
    expect(await payouts.send({ ...first, amount: '20' })).toMatchObject({ state: 'held', reason: expect.stringContaining('another amount') });
    // Looked up for the amount the off-ramp asked: held, even once the partner says it is paid.
    await emulator.settle(first.reference, 'success');
    expect(await payouts.verify(first.reference, '20')).toMatchObject({ state: 'held', reason: expect.stringContaining('another amount') });
    expect(await payouts.verify(first.reference, '10')).toMatchObject({ state: 'paid' });
  });

  it('says rejected (nothing exists) when Paystack refuses, and failed or reversed when the bank says so', async () => {
    const poor = request({ amount: String(Math.ceil(emulator.balanceKobo / 100) + 1) });
    expect(await payouts.send(poor)).toMatchObject({ state: 'rejected', reason: expect.stringContaining('balance is not enough') });
    expect(emulator.transfers.has(poor.reference)).toBe(false);
    expect(await payouts.send(request({ bankCode: '999999' }))).toMatchObject({ state: 'rejected' });

    const failing = request();
    await payouts.send(failing);
    await emulator.settle(failing.reference, 'failed');
    expect(await payouts.verify(failing.reference)).toMatchObject({ state: 'failed', reason: 'Beneficiary bank unavailable' });
    const reversing = request();
    await payouts.send(reversing);
    await emulator.settle(reversing.reference, 'success');
    await emulator.settle(reversing.reference, 'reversed');
    expect(await payouts.verify(reversing.reference)).toMatchObject({ state: 'reversed' });
  });
});

describe('FlutterwavePayouts - the same guarantees against the Flutterwave emulator (its documentation, no published contract)', () => {
  const emulator = new FlutterwaveEmulator('FLWSECK-payouts-test-X', 'hash');
  let payouts: FlutterwavePayouts;
  let attempt = 0;
  const account = makeNuban('044', '135792468');
  const request = (overrides: Partial<PayoutRequest> = {}): PayoutRequest => ({
    reference: payoutReference(`txn_01JFLWPAYOUT${Date.now()}`, ++attempt),
    bankCode: '044',
    accountNumber: account,
    accountName: 'EMEKA NWOSU',
    amount: '52000.5',
    narration: 'off-ramp payout',
    ...overrides,
  });

  beforeAll(async () => {
    await emulator.start();
    const client = new FlutterwaveClient({ baseUrl: `${emulator.url}/v3`, secretKey: 'FLWSECK-payouts-test-X', timeoutMs: 5000, backoffMs: 20 });
    payouts = new FlutterwavePayouts(client, new PartnerBankDirectory(flutterwaveBanks(client)));
  });

  afterAll(() => emulator.stop());

  it('sends Naira as an exact number under the reference, once after a lost answer, and reads the outcome', async () => {
    const first = request();
    expect(await payouts.send(first)).toMatchObject({ state: 'pending' });
    expect(emulator.calls('/v3/transfers').at(-1)!.body).toMatchObject({
      amount: 52000.5,
      currency: 'NGN',
      debit_currency: 'NGN',
      account_bank: '044',
      reference: first.reference,
    });
    const balanceBefore = emulator.balance;
    const lost = request();
    emulator.loseNextAnswers(1);
    expect(await payouts.send(lost)).toMatchObject({ state: 'pending' });
    expect(
      emulator.calls('/v3/transfers').filter((call) => call.method === 'POST' && (call.body as { reference: string }).reference === lost.reference),
    ).toHaveLength(2);
    expect(emulator.balance).toBe(balanceBefore - 52000.5);
    await emulator.settle(first.reference, 'SUCCESSFUL');
    await emulator.settle(lost.reference, 'FAILED');
    expect(await payouts.verify(first.reference)).toMatchObject({ state: 'paid' });
    expect(await payouts.verify(first.reference, '52000.50')).toMatchObject({ state: 'paid' });
    expect(await payouts.verify(first.reference, '52000.51')).toMatchObject({ state: 'held', reason: expect.stringContaining('another amount') });
    expect(await payouts.verify(lost.reference)).toMatchObject({ state: 'failed', reason: expect.stringContaining('dormant') });
    expect(await payouts.verify('no-such-reference-000')).toMatchObject({ state: 'unknown' });
    emulator.failNext(3, 503);
    expect(await payouts.send(request())).toMatchObject({ state: 'unknown' });
    expect(await payouts.send(request({ amount: '999999999' }))).toMatchObject({ state: 'rejected', reason: expect.stringContaining('Insufficient') });
    expect(Number(await payouts.balance())).toBe(emulator.balance);
  });
});
