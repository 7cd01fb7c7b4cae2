import { forbiddenAddressReason, forbiddenHostNameReason, parseIPv6 } from './addresses';

describe('forbiddenAddressReason', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.1.2', 'a loopback address'],
    ['10.1.2.3', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['100.64.0.1', 'a carrier-grade NAT address'],
    ['100.100.100.200', 'a carrier-grade NAT address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['169.254.1.1', 'a link-local address'],
    ['0.0.0.0', 'an unspecified ("this network") address'],
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'a reserved or broadcast address'],
    ['::', 'an unspecified address'],
    ['::1', 'a loopback address'],
    ['[::1]', 'a loopback address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['::ffff:a9fe:a9fe', 'a cloud metadata address'],
    ['0:0:0:0:0:ffff:10.0.0.1', 'a private address'],
    ['::ffff:0:127.0.0.1', 'a loopback address'],
    ['64:ff9b::a9fe:a9fe', 'a cloud metadata address'],
    ['2002:c0a8:0101::1', 'a private address'],
    ['::127.0.0.1', 'an IPv4-compatible (deprecated) address'],
    ['::8.8.8.8', 'an IPv4-compatible (deprecated) address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['fc00::1', 'a private (unique local) address'],
    ['fdff:ffff::1', 'a private (unique local) address'],
    ['ff02::1', 'a multicast address'],
    ['2001:db8::1', 'a documentation address'],
    ['not-an-ip', 'not an IP address'],
    ['1.2.3', 'not an IP address'],
    ['01.2.3.4', 'not an IP address'],
  ])('%s is refused as %s', (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2a00:1450:4009:81f::200e',
  ])('%s is a public address', (address) => {
    expect(forbiddenAddressReason(address)).toBeUndefined();
  });
});

describe('parseIPv6', () => {
  it('expands the shortened forms to sixteen bytes', () => {
    expect(parseIPv6('::1')).toEqual([...Array(15).fill(0), 1]);
    expect(parseIPv6('1::')).toEqual([0, 1, ...Array(14).fill(0)]);
    expect(parseIPv6('::ffff:1.2.3.4')?.slice(10)).toEqual([0xff, 0xff, 1, 2, 3, 4]);
  });

  it.each(['1::2::3', '1:2:3:4:5:6:7:8:9', '12345::', 'g::1', '1:2:3:4:5:6:7', '::1.2.3.256', '1.2.3.4'])('refuses %s', (text) => {
    expect(parseIPv6(text)).toBeUndefined();
  });
});

describe('forbiddenHostNameReason', () => {
  it.each(['localhost', 'LOCALHOST.', 'api.localhost', 'metadata.google.internal', 'metadata', 'db.internal'])('refuses %s', (host) => {
    expect(forbiddenHostNameReason(host)).toBeDefined();
  });

  it('lets ordinary names through to be resolved', () => {
    expect(forbiddenHostNameReason('hooks.merchant.ng')).toBeUndefined();
  });
});
