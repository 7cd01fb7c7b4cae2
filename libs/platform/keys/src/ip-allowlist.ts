import { BlockList, isIP } from 'net';

/** Parses `10.0.0.0/8`, `203.0.113.7`, `2001:db8::/32`; throws with the offending entry otherwise. */
export function parseCidr(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } {
  const [address, prefixText] = entry.trim().split('/');
  const version = isIP(address ?? '');
  if (version === 0) throw new Error(`"${entry}" is not an IP address or CIDR`);
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) throw new Error(`"${entry}" has an invalid prefix length`);
  return { address: address as string, prefix, family };
}

/** The most answers an allowlist keeps (cleared when full: a spray of addresses costs a check each, as before). */
const MEMO_SIZE = 1024;

/** Matches client addresses against CIDRs; IPv4-mapped IPv6 addresses (::ffff:1.2.3.4) match their IPv4 form. */
export class IpAllowlist {
  private readonly list = new BlockList();
  private readonly memo = new Map<string, boolean>();
  readonly isEmpty: boolean;

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const { address, prefix, family } = parseCidr(entry);
      this.list.addSubnet(address, prefix, family);
    }
    this.isEmpty = entries.length === 0;
  }

  allows(clientAddress: string): boolean {
    if (this.isEmpty) return true;
    // A gateway sees the same few addresses (its ingress, its clients) again and again, and BlockList.check builds a
    // SocketAddress at every call: the answers are kept, the most recent MEMO_SIZE of them.
    const known = this.memo.get(clientAddress);
    if (known !== undefined) return known;
    const allowed = this.check(clientAddress);
    if (this.memo.size >= MEMO_SIZE) this.memo.clear();
    this.memo.set(clientAddress, allowed);
    return allowed;
  }

  private check(clientAddress: string): boolean {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(clientAddress);
    const address = mapped ? (mapped[1] as string) : clientAddress;
    const version = isIP(address);
    if (version === 0) return false;
    return this.list.check(address, version === 4 ? 'ipv4' : 'ipv6');
  }
}
