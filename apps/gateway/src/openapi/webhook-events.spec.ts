import { readFileSync } from 'fs';
import { join } from 'path';
import { DECORATORS } from '@nestjs/swagger';
import { INTEGRATION_EVENT_NAMES } from '@ramp/contracts';
import { integrationEventOf, type TransactionView } from '@ramp/transactions';
import { deliveryHeaders, hexSignature, MAX_ATTEMPTS, standardWebhooksSignature } from '@ramp/webhooks';
import {
  DELIVERY_HEADERS,
  EXAMPLE_WEBHOOK_SECRET,
  OFFRAMP_COMPLETED_EVENT,
  OFFRAMP_FAILED_EVENT,
  RETRY_SCHEDULE,
  VERIFY_SNIPPET,
  WebhookEventDataSchema,
  WEBHOOKS_DESCRIPTION,
} from './webhook-events';

/** Runs the reference's snippet as a receiver would, with `secret`, the raw body and the request's headers in scope. */
function snippetVerifies(rawBody: Buffer, headers: Record<string, string>, secret: string): boolean {
  const run = new Function('require', 'secret', 'rawBody', 'req', `${VERIFY_SNIPPET}\nreturn valid;`);
  return run(require, secret, rawBody, { headers }) as boolean;
}

const documentedFields = (): string[] =>
  (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, WebhookEventDataSchema.prototype) as string[]).map((name) => name.slice(1));

describe('Webhooks reference - the served description of deliveries', () => {
  const rawBody = Buffer.from(JSON.stringify(OFFRAMP_COMPLETED_EVENT));

  it('documents exactly the headers a delivery carries, each with what it holds', () => {
    const sent = deliveryHeaders({ deliveryId: 'dlv_1', eventId: 'evt', attempt: 1, now: new Date(), rawBody: '{}', secret: EXAMPLE_WEBHOOK_SECRET });
    expect(DELIVERY_HEADERS.map((header) => header.name)).toEqual(Object.keys(sent));
    expect(DELIVERY_HEADERS.map((header) => header.name)).toEqual(
      expect.arrayContaining([
        'x-service-signature',
        'x-service-event-id',
        'x-service-delivery-attempt',
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]),
    );
    for (const header of DELIVERY_HEADERS)
      expect({ header: header.name, described: header.description.length > 20 }).toEqual({ header: header.name, described: true });
  });

  it('gives header examples that are the real signatures of the completed example, a test vector for receivers', () => {
    const example = Object.fromEntries(DELIVERY_HEADERS.map((header) => [header.name, header.example]));
    expect(example['x-service-signature']).toBe(hexSignature(rawBody, EXAMPLE_WEBHOOK_SECRET));
    expect(example['webhook-timestamp']).toBe(String(Date.parse(OFFRAMP_COMPLETED_EVENT.timestamp) / 1000));
    expect(example['webhook-signature']).toBe(
      standardWebhooksSignature(example['webhook-id']!, Number(example['webhook-timestamp']), rawBody, EXAMPLE_WEBHOOK_SECRET),
    );
    expect(example['x-service-event-id']).toBe(OFFRAMP_COMPLETED_EVENT.data.metadata.eventId);
  });

  it('shows a verification snippet that accepts a signed delivery and refuses a forged or altered one', () => {
    const signature = hexSignature(rawBody, EXAMPLE_WEBHOOK_SECRET);
    expect(snippetVerifies(rawBody, { 'x-service-signature': signature }, EXAMPLE_WEBHOOK_SECRET)).toBe(true);
    expect(snippetVerifies(Buffer.from(`${rawBody.toString()} `), { 'x-service-signature': signature }, EXAMPLE_WEBHOOK_SECRET)).toBe(false);
    expect(snippetVerifies(rawBody, { 'x-service-signature': signature }, 'whsec_another')).toBe(false);
    expect(snippetVerifies(rawBody, { 'x-service-signature': signature.slice(0, 10) }, EXAMPLE_WEBHOOK_SECRET)).toBe(false);
    expect(snippetVerifies(rawBody, {}, EXAMPLE_WEBHOOK_SECRET)).toBe(false);
    expect(WEBHOOKS_DESCRIPTION).toContain(VERIFY_SNIPPET);
  });

  it('states the retry schedule of the code, every event name and every header', () => {
    expect(RETRY_SCHEDULE).toBe('1 minute, 5 minutes, 30 minutes, 2 hours and 24 hours');
    expect(WEBHOOKS_DESCRIPTION).toContain(`retried ${RETRY_SCHEDULE} after the failed attempt`);
    expect(WEBHOOKS_DESCRIPTION).toContain(`attempt ${MAX_ATTEMPTS}`);
    for (const name of [...INTEGRATION_EVENT_NAMES, ...DELIVERY_HEADERS.map((header) => header.name)]) expect(WEBHOOKS_DESCRIPTION).toContain(`\`${name}\``);
  });

  it('agrees with docs/api/webhooks.md, the integrator reference, on the facts, the snippet and the test vector', () => {
    const page = readFileSync(join(__dirname, '../../../../docs/api/webhooks.md'), 'utf8');
    const prose = page.replace(/\s+/g, ' ');
    for (const fact of [
      `retried ${RETRY_SCHEDULE} after the failed attempt`,
      '2xx answer within 30 seconds',
      'deduplicate by `data.transactionId` plus `event` (or by `x-service-event-id`)',
    ]) {
      expect({ fact, page: prose.includes(fact), reference: WEBHOOKS_DESCRIPTION.replace(/\s+/g, ' ').includes(fact) }).toEqual({
        fact,
        page: true,
        reference: true,
      });
    }
    for (const header of DELIVERY_HEADERS) {
      expect(page).toContain(`| \`${header.name}\` | ${header.description} |`);
      expect(page).toContain(`\n${header.name}: ${header.example}\n`);
    }
    expect(page).toContain(VERIFY_SNIPPET);
    expect(page).toContain(EXAMPLE_WEBHOOK_SECRET);
    for (const example of [OFFRAMP_COMPLETED_EVENT, OFFRAMP_FAILED_EVENT]) expect(page).toContain(JSON.stringify(example, null, 2));
  });

  it('documents every field the platform puts in an event, and the examples use only documented fields', () => {
    const view: TransactionView = {
      id: 'txn_01JD7X4B2C8K4M2N6P5R7S9T1W',
      type: 'offramp',
      status: 'failed',
      chain: 'base',
      amount: '100',
      tokenSymbol: 'USDC',
      transactionHash: '0x9f2c',
      reference: 'payout-7781',
      walletId: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
      fees: { platformFee: '20.00', providerFee: '199.25', totalFee: '239.25', swapFee: '20.00' },
      ramp: {
        fiatAmount: '149250.00',
        fiatCurrency: 'NGN',
        bankAccount: { bankName: 'Guaranty Trust Bank', accountNumber: '8888888880', accountName: 'NGOZI OKONKWO' },
        payoutAmount: '149010.75',
      },
      errorMessage: 'The bank payout was rejected',
      createdAt: '2026-11-23T10:00:00.000Z',
      updatedAt: '2026-11-23T10:00:24.000Z',
    };
    const sent = integrationEventOf(view, 'offramp.failed', 'evt-1', view.updatedAt)!;
    const documented = documentedFields();
    expect(Object.keys(sent.data).filter((field) => !documented.includes(field))).toEqual([]);
    for (const example of [OFFRAMP_COMPLETED_EVENT, OFFRAMP_FAILED_EVENT])
      expect(Object.keys(example.data).filter((field) => !documented.includes(field))).toEqual([]);
  });
});
