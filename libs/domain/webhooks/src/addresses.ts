/**
 * Which IP addresses a webhook may never reach (the SSRF guard): loopback, private, link-local, carrier-grade NAT,
 * cloud metadata, unspecified, multicast and reserved ranges, in IPv4 and IPv6, including IPv4 written inside IPv6
 * (mapped `::ffff:a.b.c.d`, translated `::ffff:0:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`).
 *
 * Numeric host forms (`2130706433`, `0x7f.1`, `017700000001`) never reach this module as such: the WHATWG URL parser
 * turns them into dotted quads, and resolvers return canonical text.
 */

/** The four bytes of a dotted-quad IPv4 address, or undefined when `text` is not one. */
export function parseIPv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((part) => (/^(0|[1-9]\d{0,2})$/.test(part) ? Number(part) : NaN));
  return bytes.every((byte) => byte >= 0 && byte <= 255) ? bytes : undefined;
}

/** The sixteen bytes of an IPv6 address (brackets and a zone id are allowed), or undefined when `text` is not one. */
export function parseIPv6(text: string): number[] | undefined {
  let s = text.trim().toLowerCase();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(':')) return undefined;
  // A dotted IPv4 tail becomes two hextets.
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    if (!v4) return undefined;
    s = `${s.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string | undefined): string[] => (half ? half.split(':') : []);
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const hextets = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  if (!hextets.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return hextets.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

/** Whether `text` is an IP address literal (IPv4 dotted quad or IPv6, bracketed or not). */
export function isIpLiteral(text: string): boolean {
  return parseIPv4(text) !== undefined || parseIPv6(text) !== undefined;
}

interface Range4 {
  base: [number, number, number, number];
  bits: number;
  reason: string;
}

/** Most specific first: the first match names the reason. */
const FORBIDDEN_V4: Range4[] = [
  { base: [169, 254, 169, 254], bits: 32, reason: 'a cloud metadata address' },
  { base: [0, 0, 0, 0], bits: 8, reason: 'an unspecified ("this network") address' },
  { base: [10, 0, 0, 0], bits: 8, reason: 'a private address' },
  { base: [100, 64, 0, 0], bits: 10, reason: 'a carrier-grade NAT address' },
  { base: [127, 0, 0, 0], bits: 8, reason: 'a loopback address' },
  { base: [169, 254, 0, 0], bits: 16, reason: 'a link-local address' },
  { base: [172, 16, 0, 0], bits: 12, reason: 'a private address' },
  { base: [192, 0, 0, 0], bits: 24, reason: 'a reserved (IETF protocol) address' },
  { base: [192, 0, 2, 0], bits: 24, reason: 'a documentation address' },
  { base: [192, 88, 99, 0], bits: 24, reason: 'a reserved (6to4 relay) address' },
  { base: [192, 168, 0, 0], bits: 16, reason: 'a private address' },
  { base: [198, 18, 0, 0], bits: 15, reason: 'a reserved (benchmarking) address' },
  { base: [198, 51, 100, 0], bits: 24, reason: 'a documentation address' },
  { base: [203, 0, 113, 0], bits: 24, reason: 'a documentation address' },
  { base: [224, 0, 0, 0], bits: 4, reason: 'a multicast address' },
  { base: [240, 0, 0, 0], bits: 4, reason: 'a reserved or broadcast address' },
];

function inPrefix(bytes: readonly number[], base: readonly number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const index = bit / 8;
    const width = Math.min(8, bits - bit);
    const mask = (0xff << (8 - width)) & 0xff;
    if (((bytes[index] ?? 0) & mask) !== ((base[index] ?? 0) & mask)) return false;
  }
  return true;
}

function forbiddenV4(bytes: readonly number[]): string | undefined {
  return FORBIDDEN_V4.find((range) => inPrefix(bytes, range.base, range.bits))?.reason;
}

const hex = (text: string): number[] => parseIPv6(text)!;

interface Range6 {
  base: number[];
  bits: number;
  /** A reason, or where an embedded IPv4 address starts (its reason then decides). */
  reason?: string;
  embeddedV4At?: number;
}

const FORBIDDEN_V6: Range6[] = [
  { base: hex('::'), bits: 128, reason: 'an unspecified address' },
  { base: hex('::1'), bits: 128, reason: 'a loopback address' },
  { base: hex('::ffff:0:0'), bits: 96, embeddedV4At: 12 },
  { base: hex('::ffff:0:0:0'), bits: 96, embeddedV4At: 12 },
  { base: hex('64:ff9b::'), bits: 96, embeddedV4At: 12 },
  { base: hex('2002::'), bits: 16, embeddedV4At: 2 },
  { base: hex('::'), bits: 96, reason: 'an IPv4-compatible (deprecated) address' },
  { base: hex('64:ff9b:1::'), bits: 48, reason: 'a private (local NAT64) address' },
  { base: hex('100::'), bits: 64, reason: 'a reserved (discard) address' },
  { base: hex('2001::'), bits: 32, reason: 'a reserved (Teredo) address' },
  { base: hex('2001:db8::'), bits: 32, reason: 'a documentation address' },
  { base: hex('fd00:ec2::254'), bits: 128, reason: 'a cloud metadata address' },
  { base: hex('fc00::'), bits: 7, reason: 'a private (unique local) address' },
  { base: hex('fe80::'), bits: 10, reason: 'a link-local address' },
  { base: hex('fec0::'), bits: 10, reason: 'a private (site-local) address' },
  { base: hex('ff00::'), bits: 8, reason: 'a multicast address' },
];

function forbiddenV6(bytes: readonly number[]): string | undefined {
  for (const range of FORBIDDEN_V6) {
    if (!inPrefix(bytes, range.base, range.bits)) continue;
    if (range.embeddedV4At === undefined) return range.reason;
    const reason = forbiddenV4(bytes.slice(range.embeddedV4At, range.embeddedV4At + 4));
    if (reason) return reason;
  }
  return undefined;
}

/**
 * Why a webhook may not reach `address` (e.g. `a private address`), or undefined when it is a public unicast address.
 * Text that is not an IP address is refused too: the guard only passes what it understands.
 */
export function forbiddenAddressReason(address: string): string | undefined {
  const v4 = parseIPv4(address);
  if (v4) return forbiddenV4(v4);
  const v6 = parseIPv6(address);
  if (v6) return forbiddenV6(v6);
  return 'not an IP address';
}

/** Host names that mean the machine itself or a metadata service, whatever a resolver says (RFC 6761 and clouds). */
export function forbiddenHostNameReason(hostname: string): string | undefined {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return 'a loopback host name';
  if (name === 'metadata' || name === 'metadata.google.internal' || name === 'instance-data' || name.endsWith('.internal'))
    return 'a cloud metadata or internal host name';
  return undefined;
}
