import { createHmac } from 'crypto';
import { deliveryHeaders, hexSignature, newWebhookSecret, standardWebhooksKey } from './signature';

const body = '{"event":"offramp.completed","timestamp":"2026-11-23T10:00:00.000Z","data":{"amount":"1.50"}}';

describe('signatures', () => {
  it('x-service-signature is the lowercase hex HMAC-SHA256 of the raw body keyed with the secret as written', () => {
    const secret = 'whsec_c2VjcmV0';
    expect(hexSignature(body, secret)).toBe(createHmac('sha256', secret).update(body).digest('hex'));
    expect(hexSignature(body, secret)).toMatch(/^[0-9a-f]{64}$/);
    expect(hexSignature(`${body} `, secret)).not.toBe(hexSignature(body, secret));
  });

  it('webhook secrets are whsec_ and 32 random bytes in base64, each new', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(standardWebhooksKey(secret)).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('the delivery headers carry the event id, the attempt, the delivery id and the time in seconds', () => {
    const secret = newWebhookSecret();
    const now = new Date('2026-11-23T10:00:00.000Z');
    const headers = deliveryHeaders({ deliveryId: 'dlv_1', eventId: 'evt-1', attempt: 2, now, rawBody: body, secret });
    expect(headers).toEqual({
      'x-service-signature': createHmac('sha256', secret).update(body).digest('hex'),
      'x-service-event-id': 'evt-1',
      'x-service-delivery-attempt': '2',
      'webhook-id': 'dlv_1',
      'webhook-timestamp': '1795428000',
      'webhook-signature': `v1,${createHmac('sha256', standardWebhooksKey(secret)).update(`dlv_1.1795428000.${body}`).digest('base64')}`,
    });
  });

  it('a Standard Webhooks signature is keyed with the decoded whsec_ bytes (as the standardwebhooks libraries do), an API secret with its own bytes', () => {
    const key = Buffer.alloc(32, 7);
    const secret = `whsec_${key.toString('base64')}`;
    const headers = deliveryHeaders({ deliveryId: 'msg_1', eventId: 'e', attempt: 1, now: new Date(1_700_000_000_000), rawBody: body, secret });
    expect(headers['webhook-signature']).toBe(`v1,${createHmac('sha256', key).update(`msg_1.1700000000.${body}`).digest('base64')}`);
    const apiSecret = 'service_secret_abc';
    const callback = deliveryHeaders({ deliveryId: 'msg_1', eventId: 'e', attempt: 1, now: new Date(1_700_000_000_000), rawBody: body, secret: apiSecret });
    expect(callback['webhook-signature']).toBe(`v1,${createHmac('sha256', apiSecret).update(`msg_1.1700000000.${body}`).digest('base64')}`);
  });
});
