import { randomBytes } from 'crypto';
import { SecretBox } from './secret-box';
import { environmentOfKey, generateApiKey, generateApiSecret, hashApiKey } from './api-key';
import { IpAllowlist } from './ip-allowlist';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32).toString('base64'), true);

  it('opens what it sealed, and the sealed form does not contain the secret', () => {
    const secret = generateApiSecret();
    const sealed = box.seal(secret);
    expect(sealed).not.toContain(secret.slice(15));
    expect(box.open(sealed)).toBe(secret);
  });

  it('refuses a tampered ciphertext', () => {
    const sealed = box.seal('whsec_abc');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
  });

  it('cannot open with another key', () => {
    const other = new SecretBox(randomBytes(32).toString('base64'), true);
    expect(() => other.open(box.seal('x'))).toThrow();
  });

  it('requires a key in production and checks its length', () => {
    expect(() => new SecretBox(undefined, true)).toThrow(/required in production/);
    expect(() => new SecretBox(Buffer.alloc(16).toString('base64'), false)).toThrow(/32 bytes/);
    expect(new SecretBox(undefined, false).open(new SecretBox(undefined, false).seal('dev'))).toBe('dev');
  });
});

describe('API keys', () => {
  it('carry the environment in their prefix', () => {
    expect(generateApiKey('test')).toMatch(/^service_test_[A-Za-z0-9_-]{32}$/);
    expect(environmentOfKey(generateApiKey('live'))).toBe('live');
    expect(environmentOfKey('sk_live_other')).toBeUndefined();
    expect(generateApiSecret()).toMatch(/^service_secret_/);
  });

  it('are stored as a hash that differs per key', () => {
    const key = generateApiKey('test');
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toBe(hashApiKey(generateApiKey('test')));
  });
});

describe('IpAllowlist', () => {
  it('allows everything when empty', () => {
    expect(new IpAllowlist([]).allows('198.51.100.1')).toBe(true);
  });

  it('matches addresses and CIDRs of both families, including IPv4-mapped IPv6', () => {
    const list = new IpAllowlist(['203.0.113.0/24', '198.51.100.7', '2001:db8::/32']);
    expect(list.allows('203.0.113.200')).toBe(true);
    expect(list.allows('::ffff:203.0.113.9')).toBe(true);
    expect(list.allows('198.51.100.7')).toBe(true);
    expect(list.allows('198.51.100.8')).toBe(false);
    expect(list.allows('2001:db8:1::5')).toBe(true);
    expect(list.allows('2001:db9::1')).toBe(false);
    expect(list.allows('not-an-ip')).toBe(false);
  });

  it('names a malformed entry', () => {
    expect(() => new IpAllowlist(['10.0.0.0/33'])).toThrow(/invalid prefix/);
    expect(() => new IpAllowlist(['example.com'])).toThrow(/not an IP/);
  });
});
