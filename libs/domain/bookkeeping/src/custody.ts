import { isChainName } from '@ramp/chains';
import { Decimal, dec } from '@ramp/money';
import { assetOf, externalAccount } from './journal';

/**
 * The books of what the platform holds on a chain. Every real movement on the chain is posted against one external
 * account per environment and chain, `external:chain-<environment>-<chain>`: a deposit is moved from it (to the wallet
 * it credits, or to the account that owns it), a transfer out and the gas of every send are moved back to it. Its
 * balance is therefore minus what the platform holds there, per token, and reconciliation compares that with the chain.
 */
export const chainAccount = (environment: string, chain: string): string => externalAccount(`chain-${environment}-${chain}`);

/** What the network was paid for the hot wallet's sends on a chain (its balance is minus the gas spent). */
export const gasAccount = (environment: string, chain: string): string => externalAccount(`gas-${environment}-${chain}`);

/** The account a deposit to an address owned by `kind` (offramp, treasury) is booked to: `external:<kind>-deposits-…`. */
export const depositsAccount = (kind: string, environment: string, chain: string): string => externalAccount(`${kind}-deposits-${environment}-${chain}`);

/**
 * What reorganisations cost the platform on a chain: a reversed deposit that had already been refunded or paid out, or
 * that a wallet no longer held in full (the wallet's shortfall). Its balance is minus the loss; a deposit the chain
 * takes back in later recovers it.
 */
export const reorgLossAccount = (environment: string, chain: string): string => externalAccount(`reorg-loss-${environment}-${chain}`);

/** Dust: deposits below their token's minimum, kept by the platform where they arrived (never credited to their owner). */
export const dustAccount = (environment: string, chain: string): string => externalAccount(`dust-${environment}-${chain}`);

/**
 * The gas the platform's paymaster sponsored for an organization's managed wallets on a chain (their UserOperations):
 * the platform's expense, per organization; its balance is minus what was sponsored. Paid out of the paymaster's
 * EntryPoint deposit (`paymasterAccount`), which is not among the chain's holdings.
 */
export const sponsoredGasAccount = (environment: string, chain: string, organizationId: string): string =>
  externalAccount(`sponsored-gas-${environment}-${chain}-${organizationId}`);

/** The environment, chain and organization a sponsoredGasAccount names; undefined for any other account. */
export function sponsoredGasAccountOf(account: string): { environment: string; chain: string; organizationId: string } | undefined {
  const match = /^external:sponsored-gas-(live|test)-([a-z0-9]+)-(.+)$/.exec(account);
  return match ? { environment: match[1]!, chain: match[2]!, organizationId: match[3]! } : undefined;
}

/** What the paymaster's EntryPoint deposit on a chain paid for sponsored operations (its balance: what it paid). */
export const paymasterAccount = (environment: string, chain: string): string => externalAccount(`paymaster-${environment}-${chain}`);

/** The off-ramp provider's account (charged): its capture, and the chain's side of the swap and the CNGN it is sent. */
export const OFFRAMP_PROVIDER = 'offramp-provider';

/**
 * Off-ramps' deposits (charged; `depositsAccount('offramp', …)` is the same account): a deposit's credit, its refund,
 * and the deposit spent once its off-ramp paid out (to OFFRAMP_PROVIDER's account).
 */
export const OFFRAMP_DEPOSITS = 'offramp-deposits';

/** The account a transfer out charged to `name` (ChainTransfer's `account`) comes from. */
export const chargedAccount = (name: string, environment: string, chain: string): string => externalAccount(`${name}-${environment}-${chain}`);

export interface Drift {
  chain: string;
  tokenSymbol: string;
  /** What the books say the platform holds (minus the chain account's balance). */
  books: string;
  /** What the chain shows. */
  onchain: string;
  /** chain − books: positive when the chain holds more than booked (an unbooked arrival), negative when less (a loss). */
  drift: string;
}

/**
 * Compares the books with the chain, per token: every token either side names. `balances` are the chain account's
 * balances by asset (`<chain>:<symbol>`), `holdings` what the chain holds by symbol. Only the tokens that differ are
 * returned, to the base unit (decimal strings, no rounding).
 */
export function custodyDrift(chain: string, balances: ReadonlyMap<string, string>, holdings: readonly { tokenSymbol: string; amount: string }[]): Drift[] {
  const booked = new Map([...balances].map(([asset, amount]) => [asset, dec(amount).neg().toFixed()]));
  return holdingsDrift(chain, booked, holdings);
}

/** A managed wallet whose account holds, of a token, other than its balance says. */
export interface WalletDrift extends Drift {
  walletId: string;
  /** The wallet's account on chain. */
  address: string;
}

/**
 * Compares one managed wallet's balances with what its smart account holds on its chain, per token, to the base unit:
 * `balances` are its balance by asset (`<chain>:<symbol>`) with its held amounts added (a hold is a ledger entry over
 * funds the account still holds), `holdings` what the account holds by symbol. Only the tokens that differ.
 */
export function walletDrift(
  chain: string,
  wallet: { walletId: string; address: string },
  balances: ReadonlyMap<string, string>,
  holdings: readonly { tokenSymbol: string; amount: string }[],
): WalletDrift[] {
  return holdingsDrift(chain, balances, holdings).map((drift) => ({ walletId: wallet.walletId, address: wallet.address, ...drift }));
}

/** What the books (`booked`: by asset) and the chain (`holdings`: by symbol) say is held of each token either names, where they differ. */
function holdingsDrift(chain: string, booked: ReadonlyMap<string, string>, holdings: readonly { tokenSymbol: string; amount: string }[]): Drift[] {
  const symbols = new Set([
    ...holdings.map((holding) => holding.tokenSymbol),
    ...[...booked.keys()].filter((asset) => asset.startsWith(`${chain}:`)).map((asset) => asset.slice(chain.length + 1)),
  ]);
  const drifts: Drift[] = [];
  for (const tokenSymbol of [...symbols].sort()) {
    const books = dec(booked.get(assetOf(chain, tokenSymbol)) ?? '0');
    const onchain = dec(holdings.find((holding) => holding.tokenSymbol === tokenSymbol)?.amount ?? '0');
    if (!books.eq(onchain)) drifts.push({ chain, tokenSymbol, books: books.toFixed(), onchain: onchain.toFixed(), drift: onchain.sub(books).toFixed() });
  }
  return drifts;
}

/**
 * The drifts that are more than noise: |drift| above `fraction` of what either side says the platform holds (the
 * native coin's few wei of a re-mined send's gas are not, a hot wallet missing a share of a token is). A chain whose
 * drift stays significant has its outbound sends paused until it reconciles again.
 */
export function significantDrifts(drifts: readonly Drift[], fraction: string): Drift[] {
  const share = dec(fraction);
  return drifts.filter((drift) =>
    dec(drift.drift)
      .abs()
      .gt(Decimal.max(dec(drift.books).abs(), dec(drift.onchain).abs()).mul(share)),
  );
}

/** What the platform owes its customers of one token on one chain (their wallets' balances, held ones included). */
export interface Liability {
  chain: string;
  tokenSymbol: string;
  owed: string;
}

/**
 * The tokens whose customers' balances exceed what the platform holds of them on their chain: each customer's balance
 * must be backed by the chain, whatever else the books say (per-account invariant of the reconciliation).
 */
export function uncoveredLiabilities(
  liabilities: readonly Liability[],
  holdings: readonly { chain: string; tokenSymbol: string; amount: string }[],
): (Liability & { held: string })[] {
  return liabilities
    .map((liability) => ({
      ...liability,
      held: holdings.find((holding) => holding.chain === liability.chain && holding.tokenSymbol === liability.tokenSymbol)?.amount ?? '0',
    }))
    .filter((entry) => dec(entry.owed).gt(dec(entry.held)));
}

/**
 * What the platform holds of a token on a chain beyond what its customers there are owed (their wallets' balances, and
 * the tokens of their off-ramps in flight: the caller lists both as liabilities): its own inventory,
 * what on-ramps are delivered from and off-ramps' swaps land in (LIVE.md, "Treasury"). Negative when customers are owed
 * more than is held (uncoveredLiabilities lists those).
 */
export interface Inventory {
  chain: string;
  tokenSymbol: string;
  held: string;
  owed: string;
  free: string;
}

/** The inventory of every token held or owed on a chain, in the holdings' order, then the liabilities' not held. */
export function inventoryOf(liabilities: readonly Liability[], holdings: readonly { chain: string; tokenSymbol: string; amount: string }[]): Inventory[] {
  const owedOf = (chain: string, tokenSymbol: string) =>
    liabilities
      .filter((liability) => liability.chain === chain && liability.tokenSymbol === tokenSymbol)
      .reduce((sum, liability) => sum.add(liability.owed), dec(0));
  const held = holdings.map(({ chain, tokenSymbol, amount }) => {
    const owed = owedOf(chain, tokenSymbol);
    return { chain, tokenSymbol, held: dec(amount).toFixed(), owed: owed.toFixed(), free: dec(amount).sub(owed).toFixed() };
  });
  const unheld = liabilities
    .filter((liability) => !holdings.some((holding) => holding.chain === liability.chain && holding.tokenSymbol === liability.tokenSymbol))
    .filter((liability, index, all) => all.findIndex((other) => other.chain === liability.chain && other.tokenSymbol === liability.tokenSymbol) === index)
    .map(({ chain, tokenSymbol }) => {
      const owed = owedOf(chain, tokenSymbol);
      return { chain, tokenSymbol, held: '0', owed: owed.toFixed(), free: owed.neg().toFixed() };
    });
  return [...held, ...unheld];
}

/**
 * The treasury's low-water marks (TREASURY_LOW_WATER_MARKS): by the chain service's id of a chain (`live-base`,
 * `test-bsc`), then token symbol, the least inventory (Inventory.free) that is not alerted on, in the token's units.
 */
export type LowWaterMarks = Record<string, Record<string, string>>;

const MARK = /^\d+(\.\d+)?$/;

/** TREASURY_LOW_WATER_MARKS, checked: an object of chain ids, each an object of token symbols to non-negative decimal strings. */
export function parseLowWaterMarks(raw: unknown, setting = 'TREASURY_LOW_WATER_MARKS'): LowWaterMarks {
  if (raw === undefined) return {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${setting} must be an object of chains (such as "live-base")`);
  const marks: LowWaterMarks = {};
  for (const [chain, tokens] of Object.entries(raw)) {
    const [, , name] = /^(live|test)-(.+)$/.exec(chain) ?? [];
    if (!isChainName(name)) throw new Error(`${setting}.${chain} is not a chain's id: <environment>-<chain>, such as live-base`);
    if (tokens === null || typeof tokens !== 'object' || Array.isArray(tokens)) throw new Error(`${setting}.${chain} must be an object of token symbols`);
    marks[chain] = {};
    for (const [symbol, mark] of Object.entries(tokens as Record<string, unknown>)) {
      if (typeof mark !== 'string' || !MARK.test(mark))
        throw new Error(`${setting}.${chain}.${symbol} must be a decimal string such as "250000", got ${JSON.stringify(mark)}`);
      marks[chain]![symbol] = mark;
    }
  }
  return marks;
}

/** A marked token of a chain against its low-water mark: below it, or not. */
export type MarkedInventory = Inventory & { mark: string; below: boolean };

/**
 * Every marked token of an environment's chains (those reconciled) against its mark (a marked token neither held nor
 * owed has none: free 0), and the marks of chains the environment does not run, which watch nothing.
 */
export function lowWaterOf(
  environment: string,
  chains: readonly string[],
  inventory: readonly Inventory[],
  marks: LowWaterMarks,
): { marked: MarkedInventory[]; unrun: string[] } {
  const marked = chains.flatMap((chain) =>
    Object.entries(marks[`${environment}-${chain}`] ?? {}).map(([tokenSymbol, mark]) => {
      const entry = inventory.find((candidate) => candidate.chain === chain && candidate.tokenSymbol === tokenSymbol) ?? {
        chain,
        tokenSymbol,
        held: '0',
        owed: '0',
        free: '0',
      };
      return { ...entry, mark, below: dec(entry.free).lt(mark) };
    }),
  );
  const unrun = Object.keys(marks).filter((id) => id.startsWith(`${environment}-`) && !chains.includes(id.slice(environment.length + 1)));
  return { marked, unrun };
}
