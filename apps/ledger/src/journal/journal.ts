import { AppError } from '@ramp/contracts';
import type { Sql } from '@ramp/database';
import { assertBalanced, depositsAccount, mayGoNegative, netChanges, type Leg } from '@ramp/bookkeeping';

export interface Imbalance {
  asset: string;
  sum: string;
}

/** Raised when an entry would take a wallet (or held, or revenue) balance below zero. */
export class InsufficientFunds extends Error {}

/**
 * Writes balanced entries and keeps the balances beside them, inside the caller's transaction. An entry id is its
 * idempotency key: writing the same id again changes nothing and answers false.
 */
export class Journal {
  async post(tx: Sql, entryId: string, kind: string, legs: readonly Leg[]): Promise<boolean> {
    assertBalanced(legs);
    const changes = netChanges(legs);
    // One statement: the entry (once per id: a second post of it writes nothing) and its postings.
    const { rows } = await tx.query<{ created: number }>(
      `with entry as (
         insert into ledger.entries (id, kind) values ($1, $2) on conflict (id) do nothing returning id
       ),
       posted as (
         insert into ledger.postings (entry_id, account, asset, amount)
         select entry.id, leg.account, leg.asset, leg.amount
           from entry, unnest($3::text[], $4::text[], $5::numeric[]) with ordinality as leg (account, asset, amount, n)
          order by leg.n
       )
       select count(*)::int as created from entry`,
      [entryId, kind, legs.map((leg) => leg.account), legs.map((leg) => leg.asset), legs.map((leg) => leg.amount)],
    );
    if (rows[0]!.created !== 1) return false;
    // Every balance it moves in one statement: each row created or changed in netChanges' fixed order, one after the
    // other, as the rows come out of the ordered SELECT, so that concurrent entries lock rows alike (no deadlock, also
    // with a caller that holds one of the rows already). A CHECK judges an INSERT's own values even when it ends in ON
    // CONFLICT, so a new balance is proposed at zero where a change would take it below zero and the account may not go
    // there; that change is then applied to the row (locked: this transaction created it), and the CHECK refuses it
    // in PostgreSQL, which aborts the caller's transaction: the entry and its postings can never commit without it.
    try {
      const { rows: moved } = await tx.query<{ account: string; asset: string; inserted: boolean }>(
        `with change as (
           select * from unnest($1::text[], $2::text[], $3::numeric[], $4::boolean[]) with ordinality as c (account, asset, amount, may_go_negative, n)
         )
         insert into ledger.balances as b (account, asset, amount, may_go_negative)
         select account, asset, case when may_go_negative or amount >= 0 then amount else 0 end, may_go_negative from change order by n
         on conflict (account, asset) do update
           set amount = b.amount + (select c.amount from change c where c.account = excluded.account and c.asset = excluded.asset)
         returning b.account, b.asset, b.xmax = 0 as inserted`,
        [
          changes.map((change) => change.account),
          changes.map((change) => change.asset),
          changes.map((change) => change.amount),
          changes.map((change) => mayGoNegative(change.account)),
        ],
      );
      const proposedAtZero = changes.filter(
        (change) =>
          !mayGoNegative(change.account) &&
          change.amount.startsWith('-') &&
          moved.some((row) => row.inserted && row.account === change.account && row.asset === change.asset),
      );
      for (const change of proposedAtZero) {
        await tx.query(`update ledger.balances set amount = amount + $3::numeric where account = $1 and asset = $2`, [
          change.account,
          change.asset,
          change.amount,
        ]);
      }
    } catch (error) {
      const { constraint } = error as { constraint?: string };
      if (constraint === 'balance_not_negative') throw new InsufficientFunds(`a balance moved by entry ${entryId} would go below zero`);
      throw error;
    }
    return true;
  }

  /** Balances of some accounts, by account then asset. */
  async balances(db: Sql, accounts: string[]): Promise<Map<string, Map<string, string>>> {
    const { rows } = await db.query<{ account: string; asset: string; amount: string }>(
      `select account, asset, amount::text from ledger.balances where account = any($1)`,
      [accounts],
    );
    const result = new Map<string, Map<string, string>>();
    for (const row of rows) {
      const byAsset = result.get(row.account) ?? new Map<string, string>();
      byAsset.set(row.asset, row.amount);
      result.set(row.account, byAsset);
    }
    return result;
  }

  /**
   * The books' self-check: postings sum to zero per asset, every balance equals the sum of its account's postings,
   * and no wallet, held or revenue balance, nor any account of customers' deposits (an off-ramp's), is negative. Empty arrays mean the books are right.
   */
  async check(
    db: Sql,
  ): Promise<{ unbalancedAssets: Imbalance[]; driftedBalances: { account: string; asset: string }[]; negative: { account: string; asset: string }[] }> {
    const unbalanced = await db.query<{ asset: string; sum: string }>(
      `select asset, sum(amount)::text as sum from ledger.postings group by asset having sum(amount) <> 0`,
    );
    const drifted = await db.query<{ account: string; asset: string }>(
      `select coalesce(b.account, p.account) as account, coalesce(b.asset, p.asset) as asset
         from ledger.balances b
         full join (select account, asset, sum(amount) as total from ledger.postings group by account, asset) p
           on p.account = b.account and p.asset = b.asset
        where coalesce(b.amount, 0) <> coalesce(p.total, 0)`,
    );
    // The accounts of customers' deposits (external, but what they hold is the customers'): a refund gives back only what
    // arrived, so none of them can go below zero either.
    const negative = await db.query<{ account: string; asset: string }>(
      `select account, asset from ledger.balances where (not may_go_negative or account like $1) and amount < 0`,
      [`${depositsAccount('offramp', '%', '%')}`],
    );
    return { unbalancedAssets: unbalanced.rows, driftedBalances: drifted.rows, negative: negative.rows };
  }
}

export function insufficient(available: string, tokenSymbol: string): AppError {
  return new AppError('INSUFFICIENT_BALANCE', `amount: exceeds the wallet's available balance of ${available} ${tokenSymbol}`, 'amount');
}
