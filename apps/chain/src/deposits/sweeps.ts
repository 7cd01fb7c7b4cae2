import type { PoolClient } from 'pg';
import { encodeFunctionData, type Address } from 'viem';
import { withTransaction, type Sql } from '@ramp/database';
import { depositSalt, ForwarderFactory } from '@ramp/evm';
import { CHAIN_SCHEMA, type ChainContext } from '../context/chain-context';
import { ownerKey } from './owner';

/** Most addresses swept in one pass (the rest at the next). */
const SWEEPS_PER_PASS = 50;

/** Whether a sweep of the chain `$1` is due: asked in the pass's look (ChainRuntime), with the other parts' questions. */
export const SWEEPS_DUE = `exists (select 1 from ${CHAIN_SCHEMA}.sweeps_due where chain = $1 and due_at <= now())`;

/**
 * The sweeps of a chain's deposit addresses into the hot wallet: one per address after a short delay, not one per
 * deposit. A credit schedules its address's sweep `delayMs` later (chain.sweeps_due), unless one is already scheduled,
 * so the deposits that arrive at an address meanwhile (a customer paying in parts, dust sprayed at it) are flushed
 * together by one send, at the platform's gas once. At each pass, the sweeps that are due are queued on the hot wallet,
 * each recorded with the address it empties (chain.sweeps, which the reconciliation reads) in the transaction that
 * takes it off the schedule.
 */
export class Sweeps {
  constructor(
    private readonly context: ChainContext,
    private readonly delayMs: number,
  ) {
    // A send that spends the hot wallet may pay out of a deposit whose sweep is scheduled: the sweeps go first.
    context.beforeSpend = (db) => this.queue(db, 'all');
  }

  /** In the transaction that credits a deposit: its address swept `delayMs` from now, or with the sweep already due. */
  async schedule(tx: PoolClient, address: string, owner: string): Promise<void> {
    await tx.query(
      `insert into ${CHAIN_SCHEMA}.sweeps_due (chain, address, owner, due_at) values ($1, $2, $3, now() + make_interval(secs => $4::double precision / 1000))
         on conflict (chain, address) do nothing`,
      [this.context.id, address.toLowerCase(), owner, this.delayMs],
    );
  }

  /**
   * A pass whose look found a sweep due (SWEEPS_DUE; most find none, and cost nothing here): every sweep that is due
   * queued on the hot wallet (its forwarder deployed the first time, then flushed).
   */
  async tick(): Promise<void> {
    await withTransaction(this.context.pool, (tx) => this.queue(tx, 'due'));
  }

  /**
   * Takes the sweeps that are due (or all that are scheduled, before a send that spends the hot wallet) off the
   * schedule and queues them, in the caller's transaction.
   */
  private async queue(db: Sql, which: 'due' | 'all'): Promise<void> {
    const { context } = this;
    const { rows } = await db.query<{ address: string; owner: string }>(
      `delete from ${CHAIN_SCHEMA}.sweeps_due where (chain, address) in (
         select chain, address from ${CHAIN_SCHEMA}.sweeps_due where chain = $1 and ($2 or due_at <= now()) order by due_at limit ${SWEEPS_PER_PASS} for update skip locked)
       returning address, owner`,
      [context.id, which === 'all'],
    );
    for (const { address, owner } of rows) {
      const { rows: counted } = await db.query<{ sweeps: number }>(
        `select count(*)::int as sweeps from ${CHAIN_SCHEMA}.sweeps where chain = $1 and address = $2`,
        [context.id, address],
      );
      const key = `sweep:${context.environment}:${context.chain}:${address}:${counted[0]!.sweeps}`;
      await db.query(`insert into ${CHAIN_SCHEMA}.sweeps (chain, send_key, address) values ($1, $2, $3)`, [context.id, key, address]);
      await context.enqueue(db, 'sweep', key, {
        to: context.network.contracts.forwarderFactory as Address,
        data: encodeFunctionData({ abi: ForwarderFactory.abi, functionName: 'sweep', args: [depositSalt(ownerKey(owner)!), context.tokenContracts] }),
      });
    }
  }
}
