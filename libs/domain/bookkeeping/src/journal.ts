import { Decimal, dec } from '@ramp/money';

/**
 * Double-entry bookkeeping, pure. Every movement is an entry of legs whose signed amounts sum to zero per asset;
 * an account's balance is the sum of its legs. Assets are `<chain>:<symbol>` (a token is only the same token on the
 * same chain).
 */
export interface Leg {
  account: string;
  asset: string;
  /** Signed decimal string: positive adds to the account, negative takes from it. */
  amount: string;
}

export type AccountKind = 'wallet' | 'held' | 'external' | 'revenue';

/** A wallet's spendable balance. It can never go negative. */
export const walletAccount = (walletId: string): string => `wallet:${walletId}`;
/** What is reserved from a wallet for a transaction in flight (a hold). It can never go negative either. */
export const heldAccount = (walletId: string): string => `held:${walletId}`;
/** The world outside the ledger (deposits, sandbox funding, providers paid): these may go negative. */
export const externalAccount = (name: string): string => `external:${name}`;
export const revenueAccount = (name: string): string => `revenue:${name}`;

export function kindOf(account: string): AccountKind {
  const kind = account.slice(0, account.indexOf(':'));
  if (kind === 'wallet' || kind === 'held' || kind === 'external' || kind === 'revenue') return kind;
  throw new Error(`unknown account ${account}`);
}

/** Only the world outside may owe: wallet, held and revenue balances stay at zero or above. */
export const mayGoNegative = (account: string): boolean => kindOf(account) === 'external';

export const assetOf = (chain: string, tokenSymbol: string): string => `${chain}:${tokenSymbol}`;

/** Moves `amount` (positive) of `asset` from one account to another: the two legs of one posting. */
export function move(from: string, to: string, asset: string, amount: Decimal | string): Leg[] {
  const value = dec(amount);
  if (!value.isFinite() || value.lte(0)) throw new Error(`a movement must be positive, got ${value.toString()}`);
  return [
    { account: from, asset, amount: value.neg().toString() },
    { account: to, asset, amount: value.toString() },
  ];
}

/** Throws unless the legs sum to zero for every asset and none is zero. */
export function assertBalanced(legs: readonly Leg[]): void {
  if (legs.length === 0) throw new Error('an entry needs legs');
  const sums = new Map<string, Decimal>();
  for (const leg of legs) {
    const amount = dec(leg.amount);
    if (amount.isZero()) throw new Error(`a leg of zero on ${leg.account}`);
    sums.set(leg.asset, (sums.get(leg.asset) ?? dec(0)).add(amount));
  }
  for (const [asset, sum] of sums) if (!sum.isZero()) throw new Error(`entry does not balance for ${asset}: off by ${sum.toString()}`);
}

/** The net change per (account, asset), in a fixed order so that concurrent writers lock balances alike. */
export function netChanges(legs: readonly Leg[]): Leg[] {
  const net = new Map<string, Decimal>();
  for (const leg of legs) {
    const key = `${leg.account}\u0000${leg.asset}`;
    net.set(key, (net.get(key) ?? dec(0)).add(dec(leg.amount)));
  }
  return [...net]
    .filter(([, amount]) => !amount.isZero())
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, amount]) => {
      const [account, asset] = key.split('\u0000') as [string, string];
      return { account, asset, amount: amount.toString() };
    });
}
