import { createHmac } from 'crypto';
import type { IntegrationEvent } from '@ramp/contracts';
import { deliveryHeaders, newWebhookSecret } from '@ramp/webhooks';
import { constructWebhookEvent, verifyStandardWebhook, verifyWebhookSignature, WebhookVerificationError, type WebhookEvent } from './webhooks';

// The SDK's event type and the platform's are the same shape, both ways (checked by `npm run typecheck`).
const _toSdk = (event: IntegrationEvent): WebhookEvent => event;
const _toPlatform = (event: WebhookEvent): IntegrationEvent => event;

const body = JSON.stringify({
  event: 'offramp.completed',
  timestamp: '2026-11-23T10:00:00.000Z',
  data: { transactionId: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V', status: 'completed', amount: '40', metadata: { eventId: 'e1' } },
});
const now = new Date('2026-11-23T10:00:05.000Z');

/** What the notifier sends for this body and secret (the platform's own signing code). */
function delivery(secret: string, rawBody = body, at = now) {
  return deliveryHeaders({ deliveryId: 'dlv_01JD7X3Q9Z8K4M2N6P5R7S9T1V', eventId: 'e1', attempt: 1, now: at, rawBody, secret });
}

describe('verifyWebhookSignature - x-service-signature, hex HMAC-SHA256 of the raw body', () => {
  const secret = newWebhookSecret();

  it('accepts what the platform signs, as a string, a Buffer or a Uint8Array', () => {
    const signature = delivery(secret)['x-service-signature'];
    expect(verifyWebhookSignature(body, signature, secret)).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), signature, secret)).toBe(true);
    expect(verifyWebhookSignature(new Uint8Array(Buffer.from(body)), signature, secret)).toBe(true);
  });

  it('accepts a per-transaction callback signed with the API secret', () => {
    const apiSecret = 'service_secret_3fQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0Bc4Mr7j8cxyz';
    expect(verifyWebhookSignature(body, delivery(apiSecret)['x-service-signature'], apiSecret)).toBe(true);
  });

  it('refuses a tampered body, another secret, or a re-serialized body', () => {
    const signature = delivery(secret)['x-service-signature'];
    expect(verifyWebhookSignature(body.replace('"40"', '"41"'), signature, secret)).toBe(false);
    expect(verifyWebhookSignature(`${body} `, signature, secret)).toBe(false);
    expect(verifyWebhookSignature(body, signature, newWebhookSecret())).toBe(false);
    expect(verifyWebhookSignature(JSON.stringify(JSON.parse(body), null, 2), signature, secret)).toBe(false);
  });

  it('refuses a tampered signature, one hex digit off', () => {
    const signature = delivery(secret)['x-service-signature'];
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
    expect(verifyWebhookSignature(body, flipped, secret)).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['empty', ''],
    ['short', 'abc123'],
    ['one byte short', 'a'.repeat(62)],
    ['odd length', 'a'.repeat(63)],
    ['too long', 'a'.repeat(66)],
    ['not hex', 'z'.repeat(64)],
    ['prefixed', `sha256=${'a'.repeat(64)}`],
    ['two values', ['a'.repeat(64), 'b'.repeat(64)]],
    ['an object', { toString: () => 'a'.repeat(64) }],
  ])('returns false, without throwing, for a %s header', (_case, header) => {
    expect(verifyWebhookSignature(body, header as never, secret)).toBe(false);
  });

  it('returns false, without throwing, for an empty secret or a body that is not raw bytes', () => {
    const signature = delivery(secret)['x-service-signature'];
    expect(verifyWebhookSignature(body, signature, '')).toBe(false);
    expect(verifyWebhookSignature(body, signature, undefined as never)).toBe(false);
    expect(verifyWebhookSignature(JSON.parse(body) as never, signature, secret)).toBe(false);
  });

  it('accepts the header as a one-element array and with surrounding spaces (as some frameworks give it)', () => {
    const signature = delivery(secret)['x-service-signature'];
    expect(verifyWebhookSignature(body, [signature], secret)).toBe(true);
    expect(verifyWebhookSignature(body, ` ${signature} `, secret)).toBe(true);
  });
});

describe('verifyStandardWebhook - webhook-id, webhook-timestamp and webhook-signature with a replay window', () => {
  const secret = newWebhookSecret();

  it('accepts what the platform signs, from a plain header object or a fetch Headers', () => {
    const headers = delivery(secret);
    expect(verifyStandardWebhook(body, headers, secret, { now: now.getTime() })).toBe(true);
    expect(verifyStandardWebhook(Buffer.from(body), new Headers(headers), secret, { now: now.getTime() })).toBe(true);
    const upper = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    expect(verifyStandardWebhook(body, upper, secret, { now: now.getTime() })).toBe(true);
  });

  it("accepts a callback keyed with the API secret's UTF-8 bytes", () => {
    const apiSecret = 'service_secret_abc';
    expect(verifyStandardWebhook(body, delivery(apiSecret), apiSecret, { now: now.getTime() })).toBe(true);
  });

  it('refuses a delivery older or newer than the tolerance (a replay), and accepts it inside', () => {
    const headers = delivery(secret);
    expect(verifyStandardWebhook(body, headers, secret, { now: now.getTime() + 301_000 })).toBe(false);
    expect(verifyStandardWebhook(body, headers, secret, { now: now.getTime() - 301_000 })).toBe(false);
    expect(verifyStandardWebhook(body, headers, secret, { now: now.getTime() + 299_000 })).toBe(true);
    expect(verifyStandardWebhook(body, headers, secret, { now: now.getTime() + 20_000, toleranceSeconds: 10 })).toBe(false);
  });

  it('refuses a tampered body, id or timestamp', () => {
    const headers = delivery(secret);
    const at = { now: now.getTime() };
    expect(verifyStandardWebhook(body.replace('"40"', '"41"'), headers, secret, at)).toBe(false);
    expect(verifyStandardWebhook(body, { ...headers, 'webhook-id': 'dlv_other' }, secret, at)).toBe(false);
    expect(verifyStandardWebhook(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) }, secret, at)).toBe(false);
  });

  it('accepts when one of several space-separated signatures matches (secret rotation)', () => {
    const headers = delivery(secret);
    const other = `v1,${createHmac('sha256', 'other').update('x').digest('base64')}`;
    expect(verifyStandardWebhook(body, { ...headers, 'webhook-signature': `${other} ${headers['webhook-signature']}` }, secret, { now: now.getTime() })).toBe(
      true,
    );
  });

  it.each([
    ['no signature', { 'webhook-signature': undefined }],
    ['a v2 signature', { 'webhook-signature': `v2,${'A'.repeat(43)}=` }],
    ['a short signature', { 'webhook-signature': 'v1,abc' }],
    ['garbage', { 'webhook-signature': ',,,' }],
    ['no id', { 'webhook-id': '' }],
    ['a non-numeric timestamp', { 'webhook-timestamp': 'yesterday' }],
    ['a timestamp in milliseconds', { 'webhook-timestamp': String(now.getTime()) }],
  ])('returns false, without throwing, for %s', (_case, change) => {
    expect(verifyStandardWebhook(body, { ...delivery(secret), ...change }, secret, { now: now.getTime() })).toBe(false);
  });
});

describe('constructWebhookEvent - verify, then parse', () => {
  const secret = newWebhookSecret();

  it('returns the parsed event when the signature matches', () => {
    const event = constructWebhookEvent(Buffer.from(body), delivery(secret)['x-service-signature'], secret);
    expect(event).toEqual(JSON.parse(body));
  });

  it('throws WebhookVerificationError (and parses nothing) when it does not', () => {
    expect(() => constructWebhookEvent('not json', delivery(secret)['x-service-signature'], secret)).toThrow(WebhookVerificationError);
  });
});
