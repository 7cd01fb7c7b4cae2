import { forbiddenAddressReason, forbiddenHostNameReason, isIpLiteral } from './addresses';

/**
 * Hosts a webhook may reach although they are loopback or private: `WEBHOOK_ALLOW_HOSTS` (local testing only).
 * Entries are host names or IP literals, compared case-insensitively, IPv6 without brackets.
 */
export class AllowedHosts {
  private readonly hosts: Set<string>;

  constructor(entries: readonly string[]) {
    this.hosts = new Set(entries.map(AllowedHosts.normalize).filter((entry) => entry !== ''));
  }

  static normalize(host: string): string {
    return host.trim().toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
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
    return reason ? { ok: false, message: `must not target ${reason} (${host})` } : { ok: true, url, needsLookup: false };
  }
  const nameReason = forbiddenHostNameReason(host);
  if (nameReason) return { ok: false, message: `must not target ${nameReason} (${host})` };
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
