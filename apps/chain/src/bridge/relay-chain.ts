import type { PoolClient } from 'pg';
import type { Address } from 'viem';
import { invalidField, type ChainNetwork, type Environment } from '@ramp/contracts';
import type { Sql } from '@ramp/database';
import { NATIVE_TOKEN, type SendQueue, type SendRecord, type SendRequest } from '@ramp/evm';
import type { SendKind } from '../context/chain-context';
import type { ChainToken } from '../context/platform-contracts';
import type { Outflows } from '../transfers/outflows';

/**
 * What the relayer needs of each chain it works on (a ChainContext is one): who it is, its tokens and intent pool, and
 * its hot wallet's queue to hand sends to. The relayer decides; the chains' queues send.
 */
export interface RelayChain {
  /** `test-base`: how a bridge's row names its chains. */
  readonly id: string;
  readonly chain: string;
  readonly environment: Environment;
  readonly network: ChainNetwork;
  readonly hot: Pick<SendQueue, 'sender' | 'find'>;
  token(symbol: string): ChainToken | undefined;
  enqueue(db: Sql, kind: SendKind, key: string, request: SendRequest): Promise<SendRecord>;
  approveSpender(tx: PoolClient, spender: Address, token: ChainToken): Promise<void>;
  /** What the hot wallet's sends pay out, and the brake on what leaves it (a bridge deposit to an outside recipient counts). */
  readonly outflows: Pick<Outflows, 'record'>;
}

/** The chain's intent pool, or UNSUPPORTED_CHAIN naming `field` where the platform has none. */
export function intentPoolOf(chain: Pick<RelayChain, 'chain' | 'environment' | 'network'>, field: string): Address {
  const pool = chain.network.contracts.bridge?.pool;
  if (!pool) throw invalidField(field, `${chain.chain} has no intent pool of the platform for ${chain.environment} keys`, 'UNSUPPORTED_CHAIN');
  return pool as Address;
}

/** A token the intent bridge carries on the chain (a token contract, never the native coin), or UNSUPPORTED_TOKEN naming `field`. */
export function bridgedTokenOn(chain: Pick<RelayChain, 'chain' | 'token'>, symbol: string, field: string): ChainToken {
  const token = chain.token(symbol);
  if (!token) throw invalidField(field, `must be a token of ${chain.chain}`, 'UNSUPPORTED_TOKEN');
  if (token.address === NATIVE_TOKEN) throw invalidField(field, `the intent bridge carries tokens, not ${chain.chain}'s native coin`, 'UNSUPPORTED_TOKEN');
  return token;
}
