import type { Environment } from '@ramp/contracts';

/** Who may own a deposit address: a managed wallet or a non-custodial off-ramp, by its id. */
const OWNER = /^(wallet|offramp):([a-z]+_[0-9A-Za-z]{10,40})$/;

/** The id behind a deposit address's owner (`wallet:<id>`, `offramp:<id>`): its forwarder's salt. Undefined for any other owner. */
export function ownerKey(owner: string): string | undefined {
  return OWNER.exec(owner)?.[2];
}

/** The hot wallet's own watch: what arrives from outside (gas top-ups, a treasury transfer) is the platform's. */
const TREASURY_PREFIX = 'treasury:';

/** The owner of a chain's hot wallet as a watched address (`treasury:test-base`). */
export function treasuryOwner(chainId: string): string {
  return `${TREASURY_PREFIX}${chainId}`;
}

export function isTreasury(owner: string): boolean {
  return owner.startsWith(TREASURY_PREFIX);
}

/** A deposit's id wherever it goes (its events, a refund's `refundOf`, its sweep's key): `test:base:<hash>:<log index>`. */
export function depositIdOf(environment: Environment, chain: string, txHash: string, logIndex: number): string {
  return `${environment}:${chain}:${txHash}:${logIndex}`;
}
