import { createHmac } from 'crypto';
import { deliveryHeaders, hexSignature, newWebhookSecret, standardWebhooksKey, verifyHexSignature, verifyStandardWebhooks } from './signature';

const body = '{"event":"offramp.completed","timestamp":"2026-11-23T10:00:00.000Z","data":{"amount":"1.50"}}';

describe('signatures', () => {
  it('x-service-signature is the lowercase hex HMAC-SHA256 of the raw body keyed with the secret as written', () => {
    const secret = 'whsec_c2VjcmV0';
    expect(hexSignature(body, secret)).toBe(createHmac('sha256', secret).update(body).digest('hex'));
    expect(hexSignature(body, secret)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('webhook secrets are whsec_ and 32 random bytes in base64, each new', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(standardWebhooksKey(secret)).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('the delivery headers verify over the raw body, and fail for another body, secret or a stale timestamp', () => {
    const secret = newWebhookSecret();
    const now = new Date('2026-11-23T10:00:00.000Z');
    const headers = deliveryHeaders({ deliveryId: 'dlv_1', eventId: 'evt-1', attempt: 2, now, rawBody: body, secret });
    expect(headers).toMatchObject({ 'x-service-event-id': 'evt-1', 'x-service-delivery-attempt': '2', 'webhook-id': 'dlv_1', 'webhook-timestamp': '1795428000' });
    expect(verifyHexSignature(body, headers['x-service-signature'], secret)).toBe(true);
    expect(verifyHexSignature(`${body} `, headers['x-service-signature'], secret)).toBe(false);
    expect(verifyHexSignature(body, headers['x-service-signature'], newWebhookSecret())).toBe(false);
    expect(verifyHexSignature(body, headers['x-service-signature']?.toUpperCase(), secret)).toBe(false);
    expect(verifyHexSignature(body, undefined, secret)).toBe(false);

    const standard = { id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'] };
    expect(standard.signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verifyStandardWebhooks(body, standard, secret, now)).toBe(true);
    expect(verifyStandardWebhooks(body, { ...standard, signature: `v1,AAAA ${standard.signature}` }, secret, now)).toBe(true);
    expect(verifyStandardWebhooks(body, { ...standard, id: 'dlv_2' }, secret, now)).toBe(false);
    expect(verifyStandardWebhooks(body, standard, secret, new Date(now.getTime() + 301_000))).toBe(false);
  });

  it('a Standard Webhooks signature is keyed with the decoded whsec_ bytes (as the standardwebhooks libraries do)', () => {
    const key = Buffer.alloc(32, 7);
    const secret = `whsec_${key.toString('base64')}`;
    const headers = deliveryHeaders({ deliveryId: 'msg_1', eventId: 'e', attempt: 1, now: new Date(1_700_000_000_000), rawBody: body, secret });
    const expected = createHmac('sha256', key).update(`msg_1.1700000000.${body}`).digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
  });
});
