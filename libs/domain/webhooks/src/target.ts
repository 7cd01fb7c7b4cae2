import { forbiddenAddressReason, forbiddenHostNameReason, isIpLiteral } from './addresses';

/**
 * Hosts a webhook may reach although they are loopback or private: `WEBHOOK_ALLOW_HOSTS` (local testing only).
 * Entries are host names or IP literals, compared case-insensitively, IPv6 without brackets.
 */
export class AllowedHosts {
  private readonly hosts: Set<string>;

  /** `localTesting` (development): a refusal of a local or private host says how to allow it for local testing. */
  constructor(
    entries: readonly string[],
    private readonly options: { localTesting?: boolean } = {},
  ) {
    this.hosts = new Set(entries.map(AllowedHosts.normalize).filter((entry) => entry !== ''));
  }

  /**
   * A refusal of `host`; for a loopback or private one (a receiver on the developer's machine or network, never a
   * metadata or reserved address) in development, with the way to allow it when testing locally.
   */
  refusal(rule: string, host: string): string {
    const local = /\b(loopback|private)\b/.test(rule);
    return this.options.localTesting && local ? `${rule}; to reach ${host} while testing locally, start the platform with WEBHOOK_ALLOW_HOSTS=${host}` : rule;
  }

  static normalize(host: string): string {
    return host
      .trim()
      .toLowerCase()
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '');
  }

  has(host: string): boolean {
    return this.hosts.has(AllowedHosts.normalize(host));
  }
}

/** The result of checking a target URL without resolving its host. */
export type TargetCheck = { ok: true; url: URL; needsLookup: boolean } | { ok: false; message: string };

/**
 * Checks a webhook or callback URL as far as can be done without DNS: an absolute `https:` URL without credentials,
 * whose host is not a loopback or metadata name and, when it is an IP literal, not a forbidden address. `needsLookup`
 * says the host is a name whose addresses must still be checked (at registration and again at connect time).
 */
export function checkTargetUrl(raw: string, allowed: AllowedHosts): TargetCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: 'must be an absolute https:// URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, message: 'must use https://' };
  if (url.username || url.password) return { ok: false, message: 'must not contain credentials' };
  if (url.hash) return { ok: false, message: 'must not contain a fragment (#...)' };
  if (raw.length > 2048) return { ok: false, message: 'must be at most 2048 characters' };
  const host = AllowedHosts.normalize(url.hostname);
  if (allowed.has(host)) return { ok: true, url, needsLookup: false };
  if (isIpLiteral(host)) {
    const reason = forbiddenAddressReason(host);
    return reason ? { ok: false, message: allowed.refusal(`must not target ${reason} (${host})`, host) } : { ok: true, url, needsLookup: false };
  }
  const nameReason = forbiddenHostNameReason(host);
  if (nameReason) return { ok: false, message: allowed.refusal(`must not target ${nameReason} (${host})`, host) };
  if (!host.includes('.')) return { ok: false, message: `must name a public host (${host} is not a fully qualified name)` };
  return { ok: true, url, needsLookup: true };
}

/** The first resolved address a webhook may not reach, with why, or undefined when every address is public. */
export function forbiddenResolution(host: string, addresses: readonly string[]): string | undefined {
  for (const address of addresses) {
    const reason = forbiddenAddressReason(address);
    if (reason) return `${host} resolves to ${reason} (${address})`;
  }
  return undefined;
}
