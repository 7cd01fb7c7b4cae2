import type { Pool } from 'pg';
import { dec } from '@ramp/money';
import { operatorCommand } from './operator';

export interface LedgerCheck {
  ok: boolean;
  unbalancedAssets: unknown[];
  driftedBalances: unknown[];
  negative: unknown[];
  /** Per environment: the chains read and the tokens whose holdings differ from the books. */
  chains: {
    environment: string;
    chains: { chain: string; blockNumber: string }[];
    drifts: { chain: string; tokenSymbol: string; books: string; onchain: string; drift: string }[];
    /** What the platform holds of each token on each chain beyond its customers' balances there. */
    inventory: { chain: string; tokenSymbol: string; held: string; owed: string; free: string }[];
    /** Each managed wallet whose address is a smart account against what its account holds. */
    wallets: {
      reconciled: number;
      inFlight: number;
      drifts: { walletId: string; address: string; chain: string; tokenSymbol: string; books: string; onchain: string; drift: string }[];
    };
  }[];
}

/**
 * `npm run ledger:check`: postings balanced per asset, balances equal to their postings, none below zero, and the books
 * of every chain equal to the chain. A deposit or a send on its way from the chain service to the books shows as a
 * drift for a moment: the check is repeated for up to `settleMs` until it passes, and the last answer is returned.
 * `env`: the command's own settings (another NATS, its user).
 */
export async function ledgerCheck(settleMs = 20_000, env: Record<string, string | undefined> = {}): Promise<LedgerCheck> {
  const deadline = Date.now() + settleMs;
  for (;;) {
    const report = await operatorCommand<LedgerCheck>('dist/apps/ledger/src/cli/check.js', [], env);
    if (report.ok || Date.now() > deadline) return report;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** `npm run projections:rebuild -- transactions`: the read model rebuilt from the event streams and swapped in. */
export function rebuildTransactions(
  env: Record<string, string | undefined> = {},
): Promise<{ projection: string; events: number; transactions: number; seconds: number; eventsPerSecond: number }> {
  return operatorCommand('dist/apps/ledger/src/cli/rebuild.js', ['transactions'], env);
}

/** The read model's rows of these transactions, as stored (for comparing the live model with a rebuild). */
export async function readModelRows(pool: Pool, ids: string[]): Promise<{ id: string; stream_version: number; view: unknown }[]> {
  return (await pool.query(`select id, stream_version, view from ledger.transactions where id = any($1) order by id`, [ids])).rows;
}

/** The four kinds of transaction. */
export type TransactionType = 'onramp' | 'offramp' | 'swap' | 'transfer';

/** A transaction as its owning service's event log records it: the record of truth, whatever its initiator was told. */
export interface LoggedTransaction {
  id: string;
  type: TransactionType;
  /** `completed` or `failed` once the log holds that event; undefined while it is still under way. */
  outcome: 'completed' | 'failed' | undefined;
  events: number;
  /** Steps still to run (the service's jobs table), e.g. the refund of a deposit that came after the failure. */
  jobs: number;
}

const LOGS = [
  { schema: 'ramp', types: ['onramp', 'offramp'] },
  { schema: 'swap_transfer', types: ['swap', 'transfer'] },
] as const;

/** Every transaction of an organization in the ramp and swap-transfer logs (streams are `<type>-<transaction id>`). */
export async function loggedTransactions(pool: Pool, organizationId: string): Promise<LoggedTransaction[]> {
  const found: LoggedTransaction[] = [];
  for (const { schema } of LOGS) {
    const { rows } = await pool.query<{ stream_id: string; events: number; outcome: string | null; jobs: number }>(
      `select e.stream_id, count(*)::int as events,
              max(case when e.type like '%.completed' then 'completed' when e.type like '%.failed' then 'failed' end) as outcome,
              (select count(*)::int from ${schema}.jobs j where j.stream_id = e.stream_id) as jobs
         from ${schema}.events e
        where e.stream_id in (select stream_id from ${schema}.events where stream_version = 1 and metadata->'tenant'->>'organizationId' = $1)
        group by e.stream_id`,
      [organizationId],
    );
    for (const row of rows) {
      const dash = row.stream_id.indexOf('-');
      found.push({
        id: row.stream_id.slice(dash + 1),
        type: row.stream_id.slice(0, dash) as TransactionType,
        outcome: (row.outcome ?? undefined) as LoggedTransaction['outcome'],
        events: row.events,
        jobs: row.jobs,
      });
    }
  }
  return found;
}

/**
 * What each transaction did to its wallet, from the ledger: the sum of the postings of its entries (`hold:`, `capture:`,
 * `release:`, `credit:` + id) on the wallet's accounts (available and held), by asset (`<chain>:<token>`), zeros left out.
 */
export async function walletMovements(pool: Pool, walletId: string, ids: string[]): Promise<Map<string, Record<string, string>>> {
  const { rows } = await pool.query<{ transaction_id: string; asset: string; amount: string }>(
    `select split_part(p.entry_id, ':', 2) as transaction_id, p.asset, sum(p.amount)::text as amount
       from ledger.postings p
      where p.account in ($1, $2) and split_part(p.entry_id, ':', 2) = any($3)
      group by 1, 2
     having sum(p.amount) <> 0`,
    [`wallet:${walletId}`, `held:${walletId}`, ids],
  );
  const movements = new Map<string, Record<string, string>>();
  for (const row of rows) movements.set(row.transaction_id, { ...movements.get(row.transaction_id), [row.asset]: dec(row.amount).toFixed() });
  return movements;
}
