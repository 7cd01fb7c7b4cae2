import { Resolver } from 'dns/promises';
import { isIP } from 'net';

export interface TargetDnsOptions {
  /** How long one query may wait for an answer before it is tried again or given up (c-ares' own timer). */
  timeoutMs: number;
  /** How many times a query is sent before the lookup fails with ETIMEOUT. */
  tries: number;
  /** Nameservers to ask (`host` or `host:port`); empty: the system's (/etc/resolv.conf). */
  servers?: readonly string[];
}

export interface TargetAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves the names of webhook and callback targets with c-ares (Node's dns.Resolver) instead of dns.lookup: its
 * queries run on the event loop with their own timeout and retries, never on libuv's small thread pool, so names whose
 * nameserver never answers (a tenant's, on purpose or not) cannot queue lookups that every other tenant's deliveries,
 * and the process's file and crypto work, would wait behind. A name fails after timeoutMs × tries at most.
 *
 * A and AAAA are asked together; either answering is enough. `localhost` names are the loopback addresses without a
 * query (RFC 6761, as /etc/hosts would say, which c-ares does not read). IP literals are themselves.
 */
export class TargetDns {
  private readonly resolver: Resolver;

  constructor(options: TargetDnsOptions) {
    this.resolver = new Resolver({ timeout: options.timeoutMs, tries: options.tries });
    if (options.servers && options.servers.length > 0) this.resolver.setServers([...options.servers]);
  }

  async resolve(host: string): Promise<TargetAddress[]> {
    const name = host.replace(/^\[|\]$/g, '').toLowerCase();
    const literal = isIP(name);
    if (literal) return [{ address: name, family: literal as 4 | 6 }];
    if (name === 'localhost' || name.endsWith('.localhost'))
      return [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ];
    const [v4, v6] = await Promise.allSettled([this.resolver.resolve4(name), this.resolver.resolve6(name)]);
    const addresses: TargetAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (addresses.length > 0) return addresses;
    throw mostTelling(
      [v4, v6].flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as NodeJS.ErrnoException] : [])),
      name,
    );
  }

  /** The same, in the callback shape of dns.lookup's `all: true` (for a socket's `lookup` option). */
  lookup(host: string, callback: (error: NodeJS.ErrnoException | null, addresses: TargetAddress[]) => void): void {
    this.resolve(host).then(
      (addresses) => callback(null, addresses),
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  }

  /** Cancels the queries in flight (they fail with ECANCELLED). */
  cancel(): void {
    this.resolver.cancel();
  }
}

/**
 * The failure that says most about the name: that it does not exist (ENOTFOUND) over that it has no address of a
 * family (ENODATA) over that nobody answered (ETIMEOUT and the rest); both families without data is a name with no
 * address, which is ENOTFOUND to the callers.
 */
function mostTelling(errors: NodeJS.ErrnoException[], name: string): NodeJS.ErrnoException {
  const codes = errors.map((error) => error.code);
  if (codes.includes('ENOTFOUND') || (codes.length > 0 && codes.every((code) => code === 'ENODATA'))) {
    return Object.assign(new Error(`${name} does not resolve`), { code: 'ENOTFOUND', hostname: name });
  }
  return (
    errors.find((error) => error.code !== 'ENODATA' && error.code !== 'ENOTFOUND') ?? Object.assign(new Error(`${name} did not resolve`), { code: 'ETIMEOUT' })
  );
}
