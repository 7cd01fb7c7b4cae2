import { pbkdf2 } from 'crypto';
import { createSocket, type Socket } from 'dgram';
import { promisify } from 'util';
import { AllowedHosts } from '@ramp/webhooks';
import { TargetDns } from './target-dns';
import { checkWebhookUrl } from './target-resolution';

/**
 * Webhook hosts are resolved by c-ares against nameservers on loopback: one that answers like a real one (an A record,
 * no AAAA, NXDOMAIN for a missing name) and one that never answers. A name whose nameserver is silent fails after the
 * resolver's own timeout, and while such lookups hang the thread pool stays free for everything else.
 */
describe('TargetDns - webhook hosts resolved by c-ares, with a timeout of its own, off the thread pool', () => {
  let silent: Socket;
  let answering: Socket;
  const portOf = (socket: Socket) => socket.address().port;

  beforeAll(async () => {
    silent = createSocket('udp4');
    silent.on('message', () => undefined);
    answering = createSocket('udp4');
    answering.on('message', (query, peer) => answering.send(answer(query), peer.port, peer.address));
    await Promise.all([silent, answering].map((socket) => new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))));
  });

  afterAll(() => {
    silent.close();
    answering.close();
  });

  it('resolves a name to its addresses, refuses a name that does not exist, and answers localhost and literals itself', async () => {
    const dns = new TargetDns({ timeoutMs: 500, tries: 1, servers: [`127.0.0.1:${portOf(answering)}`] });
    expect(await dns.resolve('hook.example.com')).toEqual([{ address: '93.184.216.34', family: 4 }]);
    await expect(dns.resolve('missing.example.com')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(await dns.resolve('localhost')).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    expect(await dns.resolve('198.51.100.4')).toEqual([{ address: '198.51.100.4', family: 4 }]);
    expect(await dns.resolve('[2001:db8::1]')).toEqual([{ address: '2001:db8::1', family: 6 }]);
    // The registration's guard on top of it: a public address passes, a missing name is refused.
    const allowed = new AllowedHosts([]);
    await expect(checkWebhookUrl('https://hook.example.com/events', allowed, dns)).resolves.toBe('https://hook.example.com/events');
    await expect(checkWebhookUrl('https://missing.example.com/events', allowed, dns)).rejects.toMatchObject({ reason: 'WEBHOOK_TARGET_REFUSED' });
  });

  it('gives up on a silent nameserver after its own timeout and tries, with ETIMEOUT', async () => {
    const dns = new TargetDns({ timeoutMs: 200, tries: 2, servers: [`127.0.0.1:${portOf(silent)}`] });
    await expect(dns.resolve('hook.example.com')).rejects.toMatchObject({ code: 'ETIMEOUT' });
  });

  it('leaves the thread pool free while lookups hang: work queued behind 50 of them finishes before any of them', async () => {
    const dns = new TargetDns({ timeoutMs: 1500, tries: 1, servers: [`127.0.0.1:${portOf(silent)}`] });
    const settled: string[] = [];
    const lookups = Array.from({ length: 50 }, (_, i) =>
      dns.resolve(`hook-${i}.example.com`).then(
        () => settled.push('lookup'),
        () => settled.push('lookup'),
      ),
    );
    // pbkdf2 runs on libuv's thread pool, as dns.lookup's getaddrinfo does: 50 hanging getaddrinfo calls would hold
    // its 4 threads, and this would wait for them.
    await Promise.all(Array.from({ length: 8 }, () => promisify(pbkdf2)('secret', 'salt', 1000, 32, 'sha256').then(() => settled.push('pool'))));
    expect(settled.filter((what) => what === 'lookup')).toHaveLength(0);
    await Promise.all(lookups);
    expect(settled.filter((what) => what === 'lookup')).toHaveLength(50);
  });
});

/**
 * A DNS answer to `query` (RFC 1035): `hook.example.com` A → 93.184.216.34; any other type of it, no data; any other
 * name, NXDOMAIN.
 */
function answer(query: Buffer): Buffer {
  const labels: string[] = [];
  let offset = 12;
  while (query[offset]! > 0) {
    labels.push(query.subarray(offset + 1, offset + 1 + query[offset]!).toString());
    offset += query[offset]! + 1;
  }
  const questionEnd = offset + 5;
  const type = query.readUInt16BE(offset + 1);
  const known = labels.join('.').toLowerCase() === 'hook.example.com';
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(0x8180 | (known ? 0 : 3), 2); // a response, recursion available; NXDOMAIN for other names
  header.writeUInt16BE(1, 4);
  const records = known && type === 1 ? 1 : 0;
  header.writeUInt16BE(records, 6);
  const question = query.subarray(12, questionEnd);
  if (records === 0) return Buffer.concat([header, question]);
  const record = Buffer.alloc(16);
  record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
  record.writeUInt16BE(1, 2);
  record.writeUInt16BE(1, 4);
  record.writeUInt32BE(60, 6);
  record.writeUInt16BE(4, 10);
  Buffer.from([93, 184, 216, 34]).copy(record, 12);
  return Buffer.concat([header, question, record]);
}
