import { ClientResolver } from './client-address';

describe('ClientResolver', () => {
  it('ignores forwarded headers from a peer that is not a trusted proxy', () => {
    const resolver = new ClientResolver(['10.0.0.0/8']);
    const facts = resolver.resolve({
      remoteAddress: '198.51.100.4',
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' },
    });
    expect(facts).toEqual({ address: '198.51.100.4', https: false, viaProxy: false });
  });

  it('believes a trusted proxy about the protocol and the client address', () => {
    const resolver = new ClientResolver(['10.0.0.0/8']);
    const facts = resolver.resolve({
      remoteAddress: '10.1.2.3',
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '6.6.6.6, 203.0.113.9, 10.0.0.7' },
    });
    // 6.6.6.6 was written by the client itself: only the right-most untrusted hop counts.
    expect(facts).toEqual({ address: '203.0.113.9', https: true, viaProxy: true });
  });

  it('reads both forwarded headers from the right: what the trusted proxy wrote, never what the client sent before it', () => {
    const resolver = new ClientResolver(['10.0.0.0/8']);
    // A proxy that appends: the client's forged `https` first, the proxy's own `http` last.
    expect(resolver.resolve({ remoteAddress: '10.1.2.3', headers: { 'x-forwarded-proto': 'https, http' } }).https).toBe(false);
    expect(resolver.resolve({ remoteAddress: '10.1.2.3', headers: { 'x-forwarded-proto': 'http,https' } }).https).toBe(true);
    // The same header twice (as lines): the client's first, the proxy's last.
    expect(resolver.resolve({ remoteAddress: '10.1.2.3', headers: { 'x-forwarded-proto': ['https', 'http'] } }).https).toBe(false);
    const lines = resolver.resolve({
      remoteAddress: '10.1.2.3',
      headers: { 'x-forwarded-proto': ['http', 'https'], 'x-forwarded-for': ['6.6.6.6', '203.0.113.9'] },
    });
    expect(lines).toEqual({ address: '203.0.113.9', https: true, viaProxy: true });
  });

  it('treats plain HTTP through a trusted proxy as plain HTTP', () => {
    const resolver = new ClientResolver(['10.0.0.0/8']);
    expect(resolver.resolve({ remoteAddress: '10.1.2.3', headers: { 'x-forwarded-proto': 'http' } }).https).toBe(false);
  });

  it('recognises loopback in both families', () => {
    expect(ClientResolver.isLoopback('127.0.0.1')).toBe(true);
    expect(ClientResolver.isLoopback('::1')).toBe(true);
    expect(ClientResolver.isLoopback('::ffff:127.0.0.1')).toBe(true);
    expect(ClientResolver.isLoopback('10.0.0.1')).toBe(false);
  });
});
