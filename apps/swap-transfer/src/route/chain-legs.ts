import { AppError, ChainBridge, ChainSwap, platformTenant, type Environment } from '@ramp/contracts';
import type { RpcClient } from '@ramp/messaging';
import { untilFinal } from '@ramp/process-kit';
import type { LegResult } from '@ramp/providers';
import { venuesOf, type Venues } from '@ramp/routing';
import { ChainNetworksReader } from '@ramp/service-kit';

/** How long a leg's step waits for its swap to be final before the job tries again later (the same key, the same swap). */
const LEG_WAIT_MS = 10_000;

/**
 * The external account that stands for the DEXes and bridges in the ledger: a route's capture goes to it and a wallet's
 * credit comes from it; on-chain legs book the chain's side against `external:route-execution-<env>-<chain>` (ChainBooks).
 */
export const ROUTE_EXECUTION = 'route-execution';

export interface ChainSwapLeg {
  environment: Environment;
  chain: string;
  /** The swap's idempotency key: `<transaction id>:leg:<index>`, or `:reverse:<index>` for the way back. */
  key: string;
  fromToken: string;
  toToken: string;
  amountIn: string;
  minimumOut: string;
  /** An address outside the platform; omitted, the hot wallet keeps the output (a wallet's credit, the next leg's input). */
  recipient?: string;
}

export interface ChainBridgeLeg {
  environment: Environment;
  fromChain: string;
  toChain: string;
  /** `<transaction id>:leg:<index>`, or `:reverse:<index>` for the way back. */
  key: string;
  token: string;
  amountIn: string;
  amountOut: string;
  /** An address outside the platform; omitted, the destination's hot wallet (the next leg's input, a wallet's credit). */
  recipient?: string;
  /** The organization whose transaction it is (the sandbox's relayer switch holds its fills); the way back is the platform's. */
  organizationId: string;
}

/**
 * The legs of a route that run on chain, executed by the chain service from the hot wallets: swaps through the
 * platform's pools on its local test chains (ChainSwap), and bridges by intent between them (ChainBridge). Knows which
 * chains have pools and intent pools (ChainNetworksReader: the chain service's networks, kept a minute, and the last
 * known kept while the chain service does not answer).
 */
export class ChainLegs {
  private readonly networks: ChainNetworksReader;

  constructor(private readonly rpc: Pick<RpcClient, 'call'>) {
    this.networks = new ChainNetworksReader(rpc);
  }

  /** The DEX and the intent bridge of each chain that has them for an environment. */
  async venues(environment: Environment): Promise<Venues> {
    try {
      return venuesOf(await this.networks.networks(systemTenant(environment)));
    } catch (error) {
      throw new AppError('SERVICE_UNAVAILABLE', `The chain service is not answering, so where the route runs cannot be decided: try again in a moment (${(error as Error).message})`);
    }
  }

  /**
   * A swap through the pools, once per key: its outcome once final (confirmed with what it gave; reverted or refused
   * with the reason, and for a minimum the pools could not meet, what they would have given). StepPending while it is
   * on its way (the job looks again a second later).
   */
  async swap(leg: ChainSwapLeg): Promise<LegResult> {
    const { environment, chain, key, fromToken, toToken, amountIn, minimumOut, recipient } = leg;
    const request: ChainSwap.Request = { environment, chain, idempotencyKey: key, fromToken, toToken, amountIn, minimumOut, account: ROUTE_EXECUTION, ...(recipient !== undefined && { recipient }) };
    const answer = await untilFinal(
      () => refusable(this.rpc.call(ChainSwap.contract, systemTenant(environment), request)),
      (value) => 'ok' in value || (value.status === 'confirmed' && value.amountOut !== undefined) || value.status === 'failed',
      LEG_WAIT_MS,
      (value) => ('ok' in value ? '' : `the swap ${key} is ${value.status} (${value.transactionHash ?? 'not signed yet'})`),
    );
    if ('ok' in answer) return answer;
    if (answer.status === 'confirmed') return { ok: true, amountOut: answer.amountOut!, transactionHash: answer.transactionHash! };
    const reason = answer.transactionHash ? `${answer.error ?? 'reverted'} (reverted on chain)` : `${answer.error ?? 'refused'} (refused before it was sent)`;
    return { ok: false, reason, ...(answer.wouldGive !== undefined && { wouldGive: answer.wouldGive }), ...(answer.transactionHash !== undefined && { transactionHash: answer.transactionHash }) };
  }

  /**
   * A bridge by intent, once per key: filled on the destination (its fill's hash there, the leg's planned output), or
   * failed once the deposit was refunded after its deadline (the refund's hash) or the deposit itself failed.
   * StepPending while the relayer is at work (the job looks again a second later).
   */
  async bridge(leg: ChainBridgeLeg): Promise<LegResult> {
    const { environment, fromChain, toChain, key, token, amountIn, amountOut, recipient, organizationId } = leg;
    const request: ChainBridge.Request = { environment, fromChain, toChain, idempotencyKey: key, token, amountIn, amountOut, account: ROUTE_EXECUTION, organizationId, ...(recipient !== undefined && { recipient }) };
    const answer = await untilFinal(
      () => refusable(this.rpc.call(ChainBridge.contract, systemTenant(environment), request)),
      (value) => 'ok' in value || value.status !== 'pending',
      LEG_WAIT_MS,
      (value) => ('ok' in value ? '' : `the bridge ${key} is on its way (deposit ${value.depositHash ?? 'not signed yet'}, fill deadline ${new Date(value.fillDeadline * 1000).toISOString()})`),
    );
    if ('ok' in answer) return answer;
    if (answer.status === 'filled') return { ok: true, amountOut, transactionHash: answer.fillHash! };
    if (answer.status === 'refunded') {
      const deadline = new Date(answer.fillDeadline * 1000).toISOString();
      return { ok: false, reason: `the relayer did not fill the deposit on ${toChain} before its deadline (${deadline}); it was refunded on ${fromChain}`, transactionHash: answer.refundHash! };
    }
    // The deposit failed (nothing left the hot wallet but gas), or its refunds did (an operator recovers the pool).
    return { ok: false, reason: `the bridge from ${fromChain} failed: ${answer.error ?? 'reverted'}`, ...((answer.refundHash ?? answer.depositHash) !== undefined && { transactionHash: (answer.refundHash ?? answer.depositHash)! }) };
  }
}

/**
 * The chain service's answer, or the leg's failure when it refused the terms (INVALID_REQUEST; a reused key is a
 * CONFLICT): nothing was queued, and asking again would be refused again, so the leg fails and the route unwinds.
 * Anything else (the chain service down, say) is thrown, and the step is tried again later.
 */
async function refusable<T>(call: Promise<T>): Promise<T | LegResult> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof AppError && error.code === 'INVALID_REQUEST') return { ok: false, reason: error.message };
    throw error;
  }
}

/** The platform acting for itself toward the chain service. */
const systemTenant = (environment: Environment) => platformTenant(environment, 'swap-transfer');
