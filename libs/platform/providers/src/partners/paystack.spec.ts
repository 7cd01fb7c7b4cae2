import { createHmac } from 'node:crypto';
import { isPaystackSignatureValid, paystackSignature } from './paystack';

describe("Paystack's event signature", () => {
  const secret = 'sk_test_4c1d';
  const body = '{"event":"transfer.success","data":{"reference":"off_01"}}';

  it('is the hex HMAC-SHA512 of the raw body keyed with the secret key', () => {
    expect(paystackSignature(body, secret)).toBe(createHmac('sha512', secret).update(body).digest('hex'));
    expect(paystackSignature(body, secret)).toMatch(/^[0-9a-f]{128}$/);
  });

  it('accepts only the exact signature of the exact bytes', () => {
    const signature = paystackSignature(body, secret);
    expect(isPaystackSignatureValid(Buffer.from(body), signature, secret)).toBe(true);
    expect(isPaystackSignatureValid(Buffer.from(body), signature.toUpperCase(), secret)).toBe(true);
    expect(isPaystackSignatureValid(body.replace('off_01', 'off_02'), signature, secret)).toBe(false);
    expect(isPaystackSignatureValid(`${body} `, signature, secret)).toBe(false);
    expect(isPaystackSignatureValid(body, paystackSignature(body, 'sk_test_other'), secret)).toBe(false);
    expect(isPaystackSignatureValid(body, undefined, secret)).toBe(false);
    expect(isPaystackSignatureValid(body, signature.slice(0, 64), secret)).toBe(false);
    expect(isPaystackSignatureValid(body, 'z'.repeat(128), secret)).toBe(false);
    expect(isPaystackSignatureValid(body, signature, '')).toBe(false);
  });
});
