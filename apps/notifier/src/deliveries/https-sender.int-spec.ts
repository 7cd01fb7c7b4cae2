import { readFileSync } from 'fs';
import { createServer, type Server } from 'https';
import type { AddressInfo } from 'net';
import { freePort, makeTestCertificates } from '@ramp/testing';
import { AllowedHosts } from '@ramp/webhooks';
import { HttpsSender } from './https-sender';
import { TargetDns } from '../webhooks/target-dns';

const dns = new TargetDns({ timeoutMs: 1000, tries: 1 });

describe('HTTPS sender - TLS, timeouts, redirects, capped answers and the SSRF guard at connect time', () => {
  const certificates = makeTestCertificates();
  const ca = readFileSync(certificates.caFile, 'utf8');
  let server: Server;
  let port: number;
  let requests = 0;

  beforeAll(async () => {
    server = createServer({ key: certificates.key, cert: certificates.cert }, (request, response) => {
      requests += 1;
      request.resume();
      request.on('end', () => {
        if (request.url === '/redirect') return void response.writeHead(302, { location: 'https://169.254.169.254/' }).end();
        if (request.url === '/slow') return void setTimeout(() => response.writeHead(200).end(), 1500);
        if (request.url === '/huge') {
          response.writeHead(500);
          const chunk = 'x'.repeat(64 * 1024);
          const write = () => {
            while (response.write(chunk)) if (response.writableLength > 1024 * 1024) break;
          };
          write();
          response.on('drain', write);
          return;
        }
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const sender = (options: Partial<ConstructorParameters<typeof HttpsSender>[0]> = {}) =>
    new HttpsSender({
      allowed: new AllowedHosts(['localhost']),
      extraCa: ca,
      timeoutMs: 1000,
      maxSocketsPerHost: 4,
      resolve: (host, callback) => dns.lookup(host, callback),
      ...options,
    });

  it('delivers to a receiver whose certificate the extra CA vouches for', async () => {
    const s = sender();
    expect(await s.send(`https://localhost:${port}/ok`, '{}', {})).toMatchObject({ statusCode: 204, error: null });
    s.close();
  });

  it('fails on a certificate nobody trusts, a refused connection and a receiver that answers too late', async () => {
    const untrusting = sender({ extraCa: undefined });
    const tls = await untrusting.send(`https://localhost:${port}/ok`, '{}', {});
    expect(tls.statusCode).toBeNull();
    expect(tls.error).toMatch(/^TLS error: /);
    untrusting.close();

    const s = sender();
    expect(await s.send(`https://localhost:${await freePort()}/`, '{}', {})).toMatchObject({ statusCode: null, error: 'connection refused' });
    const slow = await s.send(`https://localhost:${port}/slow`, '{}', {});
    expect(slow).toMatchObject({ statusCode: null, error: 'no answer within 1 s' });
    // Given up at the timeout, not before its second: libuv times a timer from the loop's clock, cached when the loop
    // iteration began, so it may fire a millisecond early by the process's own clock (a CI run measured 999).
    expect(slow.durationMs).toBeGreaterThanOrEqual(990);
    expect(slow.durationMs).toBeLessThan(1400);
    s.close();
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    const s = sender();
    const before = requests;
    expect(await s.send(`https://localhost:${port}/redirect`, '{}', {})).toMatchObject({ statusCode: 302, error: 'redirect (302) not followed' });
    expect(requests).toBe(before + 1);
    s.close();
  });

  it('reads only the first KiB of an endless answer', async () => {
    const s = sender({ maxResponseBytes: 1024, timeoutMs: 5000 });
    const result = await s.send(`https://localhost:${port}/huge`, '{}', {});
    expect(result.statusCode).toBe(500);
    expect(result.error).toBe(`HTTP 500: ${'x'.repeat(200)}`);
    expect(result.durationMs).toBeLessThan(2000);
    s.close();
  });

  it('checks the addresses again when it connects: a name that now resolves to a private address is refused (DNS rebinding)', async () => {
    let resolved = 0;
    const s = sender({
      allowed: new AllowedHosts([]),
      resolve: (hostname, callback) => {
        resolved += 1;
        callback(
          null,
          hostname === 'rebound.example.com'
            ? [
                { address: '8.8.8.8', family: 4 },
                { address: '127.0.0.1', family: 4 },
              ]
            : [{ address: '10.0.0.7', family: 4 }],
        );
      },
    });
    const before = requests;
    expect(await s.send(`https://rebound.example.com:${port}/ok`, '{}', {})).toMatchObject({
      statusCode: null,
      error: 'refused: rebound.example.com resolves to a loopback address (127.0.0.1)',
    });
    expect(await s.send(`https://intranet.example.com:${port}/ok`, '{}', {})).toMatchObject({
      error: 'refused: intranet.example.com resolves to a private address (10.0.0.7)',
    });
    // IP literals open sockets without a lookup, so they are checked before connecting.
    expect(await s.send(`https://127.0.0.1:${port}/ok`, '{}', {})).toMatchObject({ error: 'refused: 127.0.0.1 is a loopback address' });
    expect(await s.send(`https://[::ffff:7f00:1]:${port}/ok`, '{}', {})).toMatchObject({ error: 'refused: ::ffff:7f00:1 is a loopback address' });
    expect(resolved).toBe(2);
    expect(requests).toBe(before);
    s.close();
  });
});
