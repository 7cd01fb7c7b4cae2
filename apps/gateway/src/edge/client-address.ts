import { IpAllowlist } from '@ramp/keys';

export interface ConnectionFacts {
  /** The TCP peer. */
  remoteAddress: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface ClientFacts {
  /** The client's address: the peer, or the address a trusted proxy forwarded. */
  address: string;
  /** Whether the client reached the platform over HTTPS (only a trusted proxy can say so). */
  https: boolean;
  /** Whether a trusted proxy (the ingress) forwarded the request for a client: it came from outside the cluster. */
  viaProxy: boolean;
}

const LOOPBACK = new IpAllowlist(['127.0.0.0/8', '::1/128']);

/**
 * Works out who the client is and whether it used HTTPS. Forwarded headers are believed only from the configured
 * TLS-terminating proxies; from anyone else they are ignored, so a client cannot claim HTTPS or another address. From a
 * trusted proxy, only their right-most values count (the proxy's own): what a client put before them is ignored.
 */
export class ClientResolver {
  private readonly proxies: IpAllowlist;
  private readonly hasProxies: boolean;

  constructor(trustedProxies: readonly string[]) {
    this.proxies = new IpAllowlist(trustedProxies);
    this.hasProxies = trustedProxies.length > 0;
  }

  resolve({ remoteAddress, headers }: ConnectionFacts): ClientFacts {
    if (!this.hasProxies || !this.proxies.allows(remoteAddress)) return { address: remoteAddress, https: false, viaProxy: false };
    // Both headers are read from the right: the last value is the one our proxy wrote (a proxy that appends puts it
    // after whatever the client sent), whether the values come in one line or in several.
    const proto = hops(headers['x-forwarded-proto']).at(-1)?.toLowerCase();
    const forwarded = hops(headers['x-forwarded-for']);
    // The right-most address that is not one of our proxies is the client.
    let address = remoteAddress;
    for (let i = forwarded.length - 1; i >= 0; i--) {
      address = forwarded[i] as string;
      if (!this.proxies.allows(address)) break;
    }
    return { address, https: proto === 'https', viaProxy: forwarded.length > 0 };
  }

  static isLoopback(address: string): boolean {
    return LOOPBACK.allows(address);
  }
}

/** A forwarded header's values, left to right, across every line of it. */
function hops(value: string | string[] | undefined): string[] {
  return (Array.isArray(value) ? value : [value ?? ''])
    .flatMap((line) => line.split(','))
    .map((hop) => hop.trim())
    .filter((hop) => hop.length > 0);
}
