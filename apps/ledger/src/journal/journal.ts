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
    const created = await tx.query(`insert into ledger.entries (id, kind) values ($1, $2) on conflict (id) do nothing`, [entryId, kind]);
    if (created.rowCount !== 1) return false;
    const values: unknown[] = [];
    const tuples = legs.map((leg, i) => {
      values.push(entryId, leg.account, leg.asset, leg.amount);
      return `($${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, $${i * 4 + 4}::numeric)`;
    });
    await tx.query(`insert into ledger.postings (entry_id, account, asset, amount) values ${tuples.join(', ')}`, values);
    // One balance row at a time, in a fixed order, so that concurrent entries lock rows alike (no deadlock).
    for (const change of netChanges(legs)) {
      try {
        // The row first at zero (a CHECK judges an INSERT's own values, even one that ends in ON CONFLICT), then the change.
        await tx.query(`insert into ledger.balances (account, asset, amount, may_go_negative) values ($1, $2, 0, $3) on conflict do nothing`, [
          change.account,
          change.asset,
          mayGoNegative(change.account),
        ]);
        await tx.query(`update ledger.balances set amount = amount + $3::numeric where account = $1 and asset = $2`, [
          change.account,
          change.asset,
          change.amount,
        ]);
      } catch (error) {
        if ((error as { constraint?: string }).constraint === 'balance_not_negative') throw new InsufficientFunds(`${change.account} ${change.asset}`);
        throw error;
      }
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
