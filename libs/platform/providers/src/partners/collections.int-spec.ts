import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';
import { PARTNER_CONTRACTS, PaystackEmulator, PrismProxy } from '@ramp/testing';
import { PaystackCollections } from './collections';
import { isPaystackSignatureValid, PaystackClient } from './paystack';

/**
 * Paystack collections against the project's emulator behind Prism (partners/paystack.yaml): the payer's customer and
 * dedicated account, the payment's signed charge.success event, refunds.
 */
describe('PaystackCollections - dedicated accounts, payments and refunds, checked against the published contract', () => {
  const secretKey = 'sk_live_collections_test_key';
  const emulator = new PaystackEmulator(secretKey);
  let prism: PrismProxy;
  let collections: PaystackCollections;
  let receiver: Server;
  const received: { body: string; signature?: string }[] = [];
  const payer = { email: 'ada.obi@example.com', firstName: 'Ada', lastName: 'Obi', phone: '+2348031234567' };

  beforeAll(async () => {
    await emulator.start();
    prism = await PrismProxy.start(PARTNER_CONTRACTS.paystack, emulator.url);
    collections = new PaystackCollections(new PaystackClient({ baseUrl: prism.url, secretKey, timeoutMs: 5000, backoffMs: 20 }));
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ body, signature: request.headers['x-paystack-signature'] as string | undefined });
        response.end('{}');
      });
    });
    await new Promise<void>((ready) => receiver.listen(0, '127.0.0.1', ready));
  });

  afterAll(async () => {
    await new Promise((closed) => receiver.close(closed));
    await prism?.stop();
    await emulator.stop();
  });

  afterEach(() => expect(prism.violations).toEqual([]));

  const webhook = () => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;

  it("opens the payer's dedicated account as Paystack gives it, the same one for the same payer", async () => {
    const account = await collections.openAccount(payer);
    expect(account).toEqual({
      bankName: 'Wema Bank',
      bankCode: '035',
      accountNumber: expect.stringMatching(/^\d{10}$/),
      accountName: 'RAMP/ADA OBI',
      customerCode: expect.stringMatching(/^CUS_/),
    });
    expect(emulator.calls('/customer')[0]!.body).toEqual({ email: payer.email, first_name: 'Ada', last_name: 'Obi', phone: payer.phone });
    expect(emulator.calls('/dedicated_account')[0]!.body).toEqual({ customer: account.customerCode, preferred_bank: 'wema-bank' });
    expect(await collections.openAccount(payer)).toEqual(account);
    expect(emulator.customers.size).toBe(1);
  });

  it('reads a payment into it from the signed charge.success event, exactly in Naira, and refunds it once', async () => {
    const account = await collections.openAccount(payer);
    const { reference } = await emulator.payInto(account.accountNumber, 5_000_050, webhook());
    const event = received.at(-1)!;
    expect(isPaystackSignatureValid(event.body, event.signature, secretKey)).toBe(true);
    const payment = collections.paymentOf(JSON.parse(event.body));
    expect(payment).toEqual({
      reference,
      accountNumber: account.accountNumber,
      amount: '50000.5',
      customerCode: account.customerCode,
      paidAt: expect.any(String),
    });

    expect(await collections.refund(payment!, 'on-ramp paid the wrong amount')).toEqual({ state: 'refunded' });
    expect(emulator.calls('/refund').at(-1)!.body).toEqual({
      transaction: reference,
      amount: 5_000_050,
      currency: 'NGN',
      merchant_note: 'on-ramp paid the wrong amount',
    });
    expect(emulator.charges.get(reference)!.refunded).toBe(5_000_050);
    // A refund Paystack answers as failed gave nothing back: rejected, never counted as refunded.
    const { reference: second } = await emulator.payInto(account.accountNumber, 1_000, webhook());
    emulator.failNextRefund = true;
    expect(await collections.refund({ reference: second, amount: '10' }, 'failed at once')).toMatchObject({ state: 'rejected' });
    expect(emulator.charges.get(second)!.refunded).toBe(0);
    // Asked again, Paystack refuses a second refund (nothing is given back twice), and its record says it was refunded.
    expect(await collections.refund(payment!, 'again')).toEqual({ state: 'refunded' });
    expect(emulator.charges.get(reference)!.refunded).toBe(5_000_050);
  });

  it("reads a refund asked again after a lost answer as done only when Paystack's record of the charge says it was given back", async () => {
    const account = await collections.openAccount(payer);
    const { reference } = await emulator.payInto(account.accountNumber, 250_000, webhook());
    const payment = collections.paymentOf(JSON.parse(received.at(-1)!.body))!;
    emulator.loseNextAnswers(1, '/refund');
    expect(await collections.refund(payment, 'lost answer')).toMatchObject({ state: 'unknown' });
    // The first refund was made: asked again, Paystack refuses a second one, and the charge says reversed.
    expect(emulator.charges.get(reference)!.refunded).toBe(250_000);
    expect(await collections.refund(payment, 'asked again')).toEqual({ state: 'refunded' });
    expect(emulator.calls(`/transaction/verify/${reference}`)).toHaveLength(1);
    expect(emulator.charges.get(reference)!.refunded).toBe(250_000);
    // A refusal of a charge that was not given back stays a refusal: an amount above the charge.
    const { reference: other } = await emulator.payInto(account.accountNumber, 1_000, webhook());
    expect(await collections.refund({ reference: other, amount: '10.01' }, 'too much')).toMatchObject({ state: 'rejected' });
    expect(emulator.charges.get(other)!.refunded).toBe(0);
  });

  it('takes nothing else for a payment into a collection account, and says unknown when a refund gets no answer', async () => {
    const data = { reference: 'T1', amount: 100, status: 'success', currency: 'NGN', channel: 'card', customer: { customer_code: 'CUS_x' }, authorization: {} };
    expect(collections.paymentOf({ event: 'charge.success', data })).toBeUndefined();
    expect(collections.paymentOf({ event: 'transfer.success', data: { ...data, channel: 'dedicated_nuban' } })).toBeUndefined();
    expect(
      collections.paymentOf({
        event: 'charge.success',
        data: { ...data, channel: 'dedicated_nuban', authorization: { receiver_bank_account_number: '9100000001' }, amount: 1.5 },
      }),
    ).toBeUndefined();
    emulator.failNext(1, 503);
    expect(await collections.refund({ reference: 'T700000000', amount: '1' }, 'x')).toMatchObject({ state: 'unknown' });
    // Asked once and not retried (a refund is keyed by nothing of ours): the one call is the one that met the outage.
    expect(emulator.calls('/refund').filter((call) => (call.body as { merchant_note: string }).merchant_note === 'x')).toHaveLength(1);
  });
});
