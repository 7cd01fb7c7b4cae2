import { Config } from '@ramp/config';
import { flutterwaveFrom, liveBankDirectoryFrom, paystackFrom } from './partners-config';

describe('bank partners from configuration', () => {
  it('leaves a partner without its key out, and has no live directory with none', () => {
    expect(paystackFrom(new Config({}))).toBeUndefined();
    expect(flutterwaveFrom(new Config({}))).toBeUndefined();
    expect(liveBankDirectoryFrom(new Config({}))).toBeUndefined();
    expect(liveBankDirectoryFrom(new Config({ PAYSTACK_SECRET_KEY: 'sk_live_abc' }))).toBeDefined();
  });

  it("refuses a partner's test-mode key at start: live keys must never be served by a partner's test mode", () => {
    expect(() => paystackFrom(new Config({ PAYSTACK_SECRET_KEY: 'sk_test_abc' }))).toThrow(/live secret key \(sk_live_/);
    expect(() => flutterwaveFrom(new Config({ FLUTTERWAVE_SECRET_KEY: 'FLWSECK_TEST-abc-X' }))).toThrow(/live secret key/);
    expect(paystackFrom(new Config({ PAYSTACK_SECRET_KEY: 'sk_live_abc' }))).toBeDefined();
    expect(flutterwaveFrom(new Config({ FLUTTERWAVE_SECRET_KEY: 'FLWSECK-abc-X' }))).toBeDefined();
  });

  it('refuses a key with characters a key cannot have, without quoting it', () => {
    let message = '';
    try {
      paystackFrom(new Config({ PAYSTACK_SECRET_KEY: 'sk_live_abc\ndef' }));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/characters a key cannot have/);
    expect(message).not.toContain('sk_live_abc');
  });

  it('refuses an unknown partner in a provider order', () => {
    expect(() => liveBankDirectoryFrom(new Config({ NAME_ENQUIRY_PROVIDERS: 'paystack,monnify' }))).toThrow(/"monnify" is not a bank partner/);
  });
});
