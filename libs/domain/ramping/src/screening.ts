/**
 * Address screening (LIVE.md, "Chains"): a live ramp whose on-chain counterparty is on the operator's denylist
 * (SCREENING_DENYLIST_FILE, one address per line, for example the EVM addresses of the OFAC SDN list) is held for
 * compliance (`<kind>.compliance_hold`, with the address, its role and a reason) before any step moves money: it is never
 * completed or refunded automatically, since a refund would send funds to the listed address too.
 */

/** Who an address is to a ramp: the off-ramp's depositor (and where a refund goes), or where an on-ramp delivers. */
export type CounterpartyRole = 'deposit sender' | 'source address' | 'refund address' | 'destination address';

export interface ComplianceHold {
  address: string;
  role: CounterpartyRole;
  reason: string;
  at: string;
}

export interface Denylist {
  /** Lowercase 0x addresses. */
  addresses: ReadonlySet<string>;
  /** Lines that are neither blank, a comment (`#`) nor an EVM address (another chain's address: not screened here). */
  ignored: number;
}

const EVM_ADDRESS = /^0x[0-9a-f]{40}$/;

/**
 * A denylist file's addresses: one per line, any case; blank lines and `#` comments (a line's rest after `#` too) are
 * skipped; a line that is not an EVM address (a Bitcoin or Tron address from the same list) is counted as ignored.
 */
export function parseDenylist(text: string): Denylist {
  const addresses = new Set<string>();
  let ignored = 0;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim().toLowerCase();
    if (line === '') continue;
    if (EVM_ADDRESS.test(line)) addresses.add(line);
    else ignored += 1;
  }
  return { addresses, ignored };
}

/** The first of a ramp's counterparties the denylist names (absent or empty ones skipped), or undefined. */
export function listedCounterparty(
  denylist: Pick<Denylist, 'addresses'>,
  counterparties: readonly { address: string | null | undefined; role: CounterpartyRole }[],
): { address: string; role: CounterpartyRole } | undefined {
  for (const { address, role } of counterparties) {
    if (address && denylist.addresses.has(address.toLowerCase())) return { address, role };
  }
  return undefined;
}

/** The reason recorded on a hold: for operators (`npm run ops -- held`), never shown to the integrator. */
export const complianceReason = (role: CounterpartyRole): string =>
  `The ${role} is on the screening denylist (SCREENING_DENYLIST_FILE): held for compliance; nothing is sent, completed or refunded until an operator decides`;
