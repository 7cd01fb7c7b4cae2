import { IpAllowlist, parseCidr } from './ip-allowlist';

describe('IpAllowlist', () => {
  const list = new IpAllowlist(['10.0.0.0/8', '2001:db8::/32', '203.0.113.7']);

  it.each([
    ['10.1.2.3', true],
    ['::ffff:10.1.2.3', true],
    ['2001:db8::1', true],
    ['203.0.113.7', true],
    ['203.0.113.8', false],
    ['11.0.0.1', false],
    ['2001:db9::1', false],
    ['not an address', false],
    ['', false],
  ])('%s: %s, and the same when asked again (the answer kept)', (address, allowed) => {
    expect(list.allows(address)).toBe(allowed);
    expect(list.allows(address)).toBe(allowed);
  });

  it('answers right past the answers it keeps (a spray of addresses)', () => {
    const sprayed = new IpAllowlist(['10.0.0.0/16']);
    for (let i = 0; i < 3000; i++) {
      const address = `10.${i % 2}.${Math.floor(i / 256) % 256}.${i % 256}`;
      expect(sprayed.allows(address)).toBe(i % 2 === 0);
    }
    expect(sprayed.allows('10.0.0.1')).toBe(true);
    expect(sprayed.allows('10.1.0.1')).toBe(false);
  });

  it('allows everyone when empty', () => {
    expect(new IpAllowlist([]).allows('198.51.100.1')).toBe(true);
  });

  it('refuses a malformed entry, naming it', () => {
    expect(() => parseCidr('10.0.0.0/33')).toThrow('"10.0.0.0/33" has an invalid prefix length');
    expect(() => new IpAllowlist(['example.com'])).toThrow('"example.com" is not an IP address or CIDR');
  });
});
