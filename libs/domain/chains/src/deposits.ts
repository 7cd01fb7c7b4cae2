/**
 * The bookkeeping of deposits seen on a chain, as pure rules: when a deposit counts as confirmed, where a chain was
 * reorganised, and what a reorganisation does to a deposit. The deposit watcher (libs/platform/evm) applies them.
 *
 * A deposit is identified by (chain, transaction hash, log index), so seeing it again, in the same block or in
 * another after a reorganisation, is the same deposit: it is credited at most once at a time. A reorganisation that
 * removes a credited deposit takes the credit back (reversed); if the chain takes the same transfer in again, it is
 * credited again once it is confirmed again, so that what is credited is always what the chain holds.
 */
export type DepositStatus = 'seen' | 'confirmed' | 'dropped' | 'reversed';

export interface DepositState {
  status: DepositStatus;
  /** Whether the ledger holds its credit now: true from its credit until a reorganisation reverses it (never silently). */
  credited: boolean;
}

/** How many confirmations a transaction in `blockNumber` has when the chain's head is `head` (its own block is one). */
export function confirmationsOf(blockNumber: bigint, head: bigint): bigint {
  return head < blockNumber ? 0n : head - blockNumber + 1n;
}

/** The highest block number whose transactions have `depth` confirmations at `head` (-1n: none yet). */
export function confirmedThrough(head: bigint, depth: number): bigint {
  if (!Number.isInteger(depth) || depth < 1) throw new RangeError(`a confirmation depth is 1 or more, got ${depth}`);
  return head - BigInt(depth) + 1n;
}

/**
 * The first block that differs between what was recorded and the chain now: `recorded` are the hashes kept of the
 * most recent blocks scanned (any order), `canonical` the chain's hashes of the same numbers. Undefined: no reorg
 * within the window. When even the oldest recorded block differs, the fork is at or below it: the oldest number is
 * returned, and the window (kept deeper than any confirmation depth) is what bounds the rescan.
 */
export function forkPoint(recorded: ReadonlyMap<bigint, string>, canonical: ReadonlyMap<bigint, string | undefined>): bigint | undefined {
  const numbers = [...recorded.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let fork: bigint | undefined;
  for (let i = numbers.length - 1; i >= 0; i--) {
    const number = numbers[i];
    if (canonical.get(number)?.toLowerCase() === recorded.get(number)?.toLowerCase()) break;
    fork = number;
  }
  return fork;
}

/**
 * What a deposit becomes when a reorganisation removes its block, and whether its credit is to be reversed now (the
 * ledger takes it back, and an operator is told).
 */
export function afterReorg(state: DepositState): { next: DepositState; report: boolean } {
  if (state.status === 'seen') return { next: { status: 'dropped', credited: state.credited }, report: false };
  if (state.status === 'confirmed') return { next: { status: 'reversed', credited: false }, report: state.credited };
  return { next: state, report: false };
}

/** What a deposit becomes when it is seen in a block of the canonical chain (again, possibly, after a reorganisation). */
export function afterSeen(state: DepositState | undefined): DepositState {
  if (!state) return { status: 'seen', credited: false };
  if (state.status === 'dropped' || state.status === 'reversed') return { status: 'seen', credited: state.credited };
  return state;
}

/** What a deposit becomes at its confirmation depth, and whether the ledger is to be credited now. */
export function afterConfirmed(state: DepositState): { next: DepositState; credit: boolean } {
  if (state.status !== 'seen') return { next: state, credit: false };
  return { next: { status: 'confirmed', credited: true }, credit: !state.credited };
}
