import { execFileSync } from 'child_process';
import { createHmac, timingSafeEqual } from 'crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'fs';
import { createServer, type Server } from 'https';
import type { AddressInfo } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';

export interface TestCertificates {
  /** PEM file of the CA: what WEBHOOK_CA_FILE points at. */
  caFile: string;
  /** The receiver's key and certificate (for localhost and 127.0.0.1), signed by that CA. */
  key: string;
  cert: string;
}

/** Makes a CA and a server certificate for localhost with openssl, in a fresh temporary directory. */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'ramp-webhook-ca-'));
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=Ramp test CA',
  );
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    path('server.key'),
    '-out',
    path('server.csr'),
    '-subj',
    '/CN=localhost',
  );
  writeFileSync(
    path('san.ext'),
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    path('server.csr'),
    '-CA',
    path('ca.pem'),
    '-CAkey',
    path('ca.key'),
    '-CAcreateserial',
    '-out',
    path('server.pem'),
    '-days',
    '2',
    '-extfile',
    path('san.ext'),
  );
  return { caFile: path('ca.pem'), key: readFileSync(path('server.key'), 'utf8'), cert: readFileSync(path('server.pem'), 'utf8') };
}

/** One request the receiver got, with what an integrator's verification made of it. */
export interface ReceivedDelivery {
  path: string;
  headers: Record<string, string>;
  /** The body exactly as it arrived. */
  rawBody: string;
  body: any;
  /** x-service-signature matched the HMAC of the raw body under the path's secret (constant-time comparison). */
  signatureValid: boolean;
  /** The status the receiver answered. */
  status: number;
  receivedAt: number;
}

export interface ReceiverBehaviour {
  /** The secret an integrator stored for this path; undefined: the signature cannot be checked (counted invalid). */
  secretFor(path: string): string | undefined;
  /** The status to answer (default 200). */
  statusFor?(path: string, body: any): number;
}

/**
 * A real HTTPS webhook receiver, as an integrator would write one: it reads the raw body, verifies
 * `x-service-signature` (lowercase hex HMAC-SHA256 of the raw body with its secret) in constant time, and records it.
 */
export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  private server: Server | undefined;
  port = 0;

  constructor(
    private readonly certificates: TestCertificates,
    readonly behaviour: ReceiverBehaviour,
  ) {}

  /** `https://localhost:<port><path>`: allowed only through WEBHOOK_ALLOW_HOSTS=localhost. */
  url(path: string): string {
    return `https://localhost:${this.port}${path}`;
  }

  async start(port = 0): Promise<this> {
    const server = createServer({ key: this.certificates.key, cert: this.certificates.cert, keepAliveTimeout: 30_000 }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        const path = request.url ?? '/';
        const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
        let body: any;
        try {
          body = JSON.parse(rawBody);
        } catch {
          body = undefined;
        }
        const status = this.behaviour.statusFor?.(path, body) ?? 200;
        this.received.push({
          path,
          headers,
          rawBody,
          body,
          signatureValid: verify(rawBody, headers['x-service-signature'], this.behaviour.secretFor(path)),
          status,
          receivedAt: Date.now(),
        });
        response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  on(path: string): ReceivedDelivery[] {
    return this.received.filter((delivery) => delivery.path === path);
  }
}

function verify(rawBody: string, signature: string | undefined, secret: string | undefined): boolean {
  if (!secret || !signature || !/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = createHmac('sha256', secret).update(rawBody, 'utf8').digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}
