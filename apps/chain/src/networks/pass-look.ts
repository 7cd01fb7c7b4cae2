import { OPERATIONS_OPEN } from '../accounts/account-operations';
import { RELAYER_WORK } from '../bridge/intent-relayer';
import { SWEEPS_DUE } from '../deposits/sweeps';
import { NETTING_DUE } from '../transfers/transfers';

/**
 * A read for the pass's look, on the connection that holds the chain's leadership (ChainLoop, LeaderSession.query): it
 * proves the connection, and so the lock, alive, and throws once it is not, which ends the leadership before anything
 * else of the pass runs.
 */
export type LeaderRead = (sql: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;

/** What a pass's look found to do, part by part: a part with nothing to do costs no round trip. */
export interface PassLook {
  /** A sweep is due (Sweeps). */
  sweeps: boolean;
  /** A netted settlement waited its interval (Transfers.netDue). */
  netting: boolean;
  /** An account's operation is queued or submitted (AccountOperations). */
  operations: boolean;
  /** A bridge the relayer may move along, to or from the chain (IntentRelayer). */
  bridges: boolean;
}

/**
 * What the parts of a chain's pass have to do, asked in one statement instead of a round trip each, since most passes
 * find nothing for most of them. Each question is its part's own (SWEEPS_DUE, NETTING_DUE, OPERATIONS_OPEN,
 * RELAYER_WORK, each beside the query it stands for), a superset of what the part then selects. What is written while a
 * pass runs waits for the next one (a pass or so: tens of milliseconds). `parts` says which the chain runs: netting
 * when `netMs` is above 0, account operations on a chain with smart accounts, bridges with a relayer.
 */
export async function lookAtPass(read: LeaderRead, chain: string, parts: { netMs: number; operations: boolean; bridges: boolean }): Promise<PassLook> {
  const netting = parts.netMs > 0;
  const questions: Record<keyof PassLook, string> = {
    sweeps: SWEEPS_DUE,
    netting: netting ? NETTING_DUE : 'false',
    operations: parts.operations ? OPERATIONS_OPEN : 'false',
    bridges: parts.bridges ? RELAYER_WORK : 'false',
  };
  const { rows } = await read(
    `select ${Object.entries(questions)
      .map(([part, question]) => `${question} as ${part}`)
      .join(', ')}`,
    netting ? [chain, parts.netMs / 1000] : [chain],
  );
  const row = rows[0]!;
  return { sweeps: row.sweeps === true, netting: row.netting === true, operations: row.operations === true, bridges: row.bridges === true };
}
