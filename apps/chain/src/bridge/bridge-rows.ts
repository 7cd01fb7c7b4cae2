import type { PoolClient } from 'pg';
import type { Address } from 'viem';
import type { BridgeRole, BridgeStatus } from '@ramp/chains';
import { CHAIN_SCHEMA } from '../context/chain-context';
import type { RelayChain } from './relay-chain';

/** What a bridge asks (ChainBridge), resolved against both chains. */
export interface BridgeTerms {
  to: RelayChain;
  token: string;
  amountIn: string;
  amountOut: string;
  /** The destination's hot wallet when the output stays with the platform (the next leg, a wallet's credit). */
  recipient: Address;
  account: string;
  organizationId: string;
  /** What it pays out: the transaction whose hold or ledger entry it settles. */
  paysOut: string;
}

/** A bridge as `chain.bridges` holds it: one row per bridge, on its source chain. */
export interface BridgeRow {
  from_chain: string;
  key: string;
  to_chain: string;
  organization_id: string;
  token: string;
  amount_in: string;
  amount_out: string;
  recipient: string;
  account: string;
  fill_deadline: string;
  deposit_id: string | null;
  refund_attempts: number;
  status: BridgeStatus;
  error: string | null;
}

export const BRIDGE_COLUMNS =
  'from_chain, key, to_chain, organization_id, token, amount_in::text, amount_out::text, recipient, account, fill_deadline::text, deposit_id::text, refund_attempts, status, error';

export async function bridgeRow(db: Pick<PoolClient, 'query'>, key: string): Promise<BridgeRow | undefined> {
  const { rows } = await db.query<BridgeRow>(`select ${BRIDGE_COLUMNS} from ${CHAIN_SCHEMA}.bridges where key = $1`, [key]);
  return rows[0];
}

/** The bridge of a send of `chain`'s hot wallet: a fill is sent on the destination chain, every other send on the source. */
export async function bridgeRowOfSend(
  db: Pick<PoolClient, 'query'>,
  chain: Pick<RelayChain, 'id'>,
  key: string,
  role: BridgeRole,
): Promise<BridgeRow | undefined> {
  const row = await bridgeRow(db, key);
  return row && (role === 'fill' ? row.to_chain : row.from_chain) === chain.id ? row : undefined;
}

/**
 * Moves a bridge from one of `from` to `to`; false when another pass moved it first. With `unpausedIn`, only while
 * its organization's relayer is not held in that environment.
 */
export async function advanceBridge(tx: PoolClient, row: BridgeRow, from: BridgeStatus[], to: BridgeStatus, unpausedIn?: string): Promise<boolean> {
  const unpaused = `and not exists (select 1 from ${CHAIN_SCHEMA}.relayer_pauses p where p.environment = $4 and p.organization_id = b.organization_id)`;
  const { rowCount } = await tx.query(
    `update ${CHAIN_SCHEMA}.bridges b set status = $3, updated_at = now() where key = $1 and status = any($2) ${unpausedIn === undefined ? '' : unpaused}`,
    unpausedIn === undefined ? [row.key, from, to] : [row.key, from, to, unpausedIn],
  );
  return rowCount === 1;
}
