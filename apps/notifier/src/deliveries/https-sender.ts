import type { LookupAddress } from 'dns';
import { Agent, request } from 'https';
import type { LookupFunction } from 'net';
import { createSecureContext, rootCertificates } from 'tls';
import { AllowedHosts, forbiddenAddressReason, forbiddenResolution, isIpLiteral } from '@ramp/webhooks';

export interface SendResult {
  /** The receiver's status, or null when no answer came. */
  statusCode: number | null;
  /** Why it is not a delivery (null on a 2xx). */
  error: string | null;
  durationMs: number;
}

export interface HttpsSenderOptions {
  allowed: AllowedHosts;
  /** PEM of an extra trusted CA (WEBHOOK_CA_FILE), besides the public roots. */
  extraCa?: string;
  timeoutMs: number;
  /** Sockets kept per receiver (host and port). */
  maxSocketsPerHost: number;
  /** How much of a response body is read before the connection is dropped (default 4 KiB). */
  maxResponseBytes?: number;
  /** How names resolve: TargetDns's lookup (c-ares, never the thread pool), or a test's. */
  resolve: (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;
}

const USER_AGENT = 'ramp-platform-webhooks/1.0';

/** Thrown by the guarded lookup: the name resolves to an address webhooks may not reach. */
class ForbiddenTarget extends Error {
  readonly code = 'EFORBIDDENTARGET';
}

/**
 * Sends one delivery attempt as an HTTPS POST: TLS verified (public roots plus WEBHOOK_CA_FILE), redirects never
 * followed (a 3xx is a failure), the whole exchange bounded by the timeout, at most a few KiB of the answer read.
 * The SSRF guard runs again at connect time: every address a name resolves to is checked in the lookup that opens
 * the socket, so a name that changed to a private address since registration (DNS rebinding) is refused. Sockets
 * are kept alive and reused per receiver.
 */
export class HttpsSender {
  private readonly agent: Agent;
  private readonly lookup: LookupFunction;

  constructor(private readonly options: HttpsSenderOptions) {
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: options.maxSocketsPerHost,
      maxFreeSockets: options.maxSocketsPerHost,
      // One TLS context, built once, for every connection: given as `ca`, the public roots and the extra CA would be
      // parsed into a new context at every connection, and joined into the agent's key for its socket pool at every
      // request (a tenth of the notifier's CPU under load, in its profile).
      secureContext: createSecureContext(options.extraCa ? { ca: [...rootCertificates, options.extraCa] } : {}),
      rejectUnauthorized: true,
    });
    this.lookup = this.guardedLookup();
  }

  close(): void {
    this.agent.destroy();
  }

  send(url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
    const started = process.hrtime.bigint();
    const elapsed = (): number => Number((process.hrtime.bigint() - started) / 1_000_000n);
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      // Set once the request exists; a refusal before that settles with nothing to clear.
      const timing: { timer?: NodeJS.Timeout } = {};
      const settle = (statusCode: number | null, error: string | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timing.timer);
        resolve({ statusCode, error, durationMs: elapsed() });
      };
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        settle(null, 'refused: not a valid URL');
        return;
      }
      const host = AllowedHosts.normalize(target.hostname);
      if (target.protocol !== 'https:') return settle(null, 'refused: not an https:// URL');
      // Sockets to IP literals are opened without a lookup: check them here.
      if (isIpLiteral(host) && !this.options.allowed.has(host)) {
        const reason = forbiddenAddressReason(host);
        if (reason) return settle(null, `refused: ${host} is ${reason}`);
      }
      const payload = Buffer.from(body, 'utf8');
      const req = request(target, {
        method: 'POST',
        agent: this.agent,
        lookup: this.lookup,
        headers: { 'content-type': 'application/json', 'content-length': String(payload.length), 'user-agent': USER_AGENT, ...headers },
      });
      timing.timer = setTimeout(() => {
        settle(null, `no answer within ${this.options.timeoutMs / 1000} s`);
        req.destroy();
      }, this.options.timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => settle(null, describe(error)));
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const cap = this.options.maxResponseBytes ?? 4096;
        const chunks: Buffer[] = [];
        let read = 0;
        const finish = (): void => {
          if (status >= 200 && status < 300) return settle(status, null);
          const snippet = Buffer.concat(chunks).toString('utf8').slice(0, 200).replace(/\s+/g, ' ').trim();
          const what = status >= 300 && status < 400 ? `redirect (${status}) not followed` : `HTTP ${status}`;
          settle(status, snippet ? `${what}: ${snippet}` : what);
        };
        res.on('data', (chunk: Buffer) => {
          if (read >= cap) return;
          chunks.push(chunk.subarray(0, cap - read));
          read += chunk.length;
          if (read >= cap) {
            // Enough: do not read an endless answer. The socket is not reused.
            finish();
            res.destroy();
          }
        });
        res.on('end', finish);
        res.on('error', () => finish());
        res.on('close', finish);
      });
      req.end(payload);
    });
  }

  private guardedLookup(): LookupFunction {
    const resolve = this.options.resolve;
    const allowed = this.options.allowed;
    return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      resolve(hostname, (error, addresses) => {
        if (error) return callback(error);
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
        if (!allowed.has(hostname)) {
          const reason = forbiddenResolution(
            hostname,
            addresses.map((entry) => entry.address),
          );
          if (reason) return callback(new ForbiddenTarget(`refused: ${reason}`));
        }
        if (options.all) return callback(null, addresses);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      });
    }) as unknown as LookupFunction;
  }
}

function describe(error: NodeJS.ErrnoException): string {
  if (error instanceof ForbiddenTarget) return error.message;
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host not found (${error.code})`;
    case 'ETIMEDOUT':
      return 'connection timed out';
    default:
      if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/i.test(`${error.code ?? ''} ${error.message}`)) return `TLS error: ${error.message}`;
      return error.message || String(error.code);
  }
}
