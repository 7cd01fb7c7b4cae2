import { invalidField } from '@ramp/contracts';
import { checkTargetUrl, forbiddenResolution, type AllowedHosts } from '@ramp/webhooks';
import type { TargetDns } from './target-dns';

/** Well inside the gateway's RPC timeout, so that a slow resolver never turns a registration into a 503 that went through. */
const LOOKUP_TIMEOUT_MS = 2000;

/**
 * The SSRF guard at registration: the URL's own checks, then every address its host resolves to (TargetDns: c-ares,
 * never the thread pool). A name that does not exist is refused; a resolver that cannot answer now (timeout, no
 * network) lets the URL through, since every connection is checked again when it is opened.
 */
export async function checkWebhookUrl(raw: string, allowed: AllowedHosts, dns: Pick<TargetDns, 'resolve'>, field = 'url'): Promise<string> {
  const check = checkTargetUrl(raw, allowed);
  if (!check.ok) throw invalidField(field, check.message, 'WEBHOOK_TARGET_REFUSED');
  if (!check.needsLookup) return check.url.toString();
  const host = check.url.hostname;
  let addresses: string[];
  try {
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'ETIMEOUT' })), LOOKUP_TIMEOUT_MS).unref(),
    );
    addresses = (await Promise.race([dns.resolve(host), timeout])).map((entry) => entry.address);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') throw invalidField(field, `host ${host} does not resolve`, 'WEBHOOK_TARGET_REFUSED');
    return check.url.toString();
  }
  const reason = forbiddenResolution(host, addresses);
  if (reason) throw invalidField(field, allowed.refusal(`must not target a private or internal address: ${reason}`, host), 'WEBHOOK_TARGET_REFUSED');
  return check.url.toString();
}
