import { AppError, ChainNetworks, ChainSwap, platformTenant, type Environment } from '@ramp/contracts';
import type { RpcClient } from '@ramp/messaging';
import type { LegResult } from '@ramp/providers';
import { venuesOf } from '@ramp/routing';
import { Expiring } from '@ramp/service-kit';

/** The chain service's networks change only with its settings (a restart): kept this long per environment. */
const NETWORKS_TTL_MS = 60_000;
/** How long a leg's step waits for its swap to be final before the job tries again later (the same key, the same swap). */
const LEG_WAIT_MS = 10_000;
const POLL_MS = 200;

/** The ledger account that on-chain legs are booked against (ChainBooks: `external:route-execution-<env>-<chain>`). */
export const ROUTE_EXECUTION = 'route-execution';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Not final yet: the job runs the step again later, and the same idempotency key finds the same swap. */
export class LegPending extends Error {}

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

/**
 * The legs of a route that run on chain: swaps through the platform's pools on its local test chains, executed by the
 * chain service from the hot wallet (ChainSwap). Knows which chains have pools (the chain service's networks, kept a
 * minute, and the last known kept while the chain service does not answer).
 */
export class ChainLegs {
  private readonly networks = new Expiring<Map<string, string>>(NETWORKS_TTL_MS);
  private readonly lastKnown = new Map<Environment, Map<string, string>>();

  constructor(private readonly rpc: Pick<RpcClient, 'call'>) {}

  /** The DEX of each chain with the platform's pools for an environment: chain → the DEX's name. */
  async venues(environment: Environment): Promise<Map<string, string>> {
    try {
      const venues = await this.networks.get(environment, async () => {
        const { networks } = await this.rpc.call(ChainNetworks.contract, systemTenant(environment), { environment });
        return venuesOf(networks);
      });
      this.lastKnown.set(environment, venues);
      return venues;
    } catch (error) {
      const known = this.lastKnown.get(environment);
      if (known) return known;
      throw new AppError('SERVICE_UNAVAILABLE', `The chain service is not answering, so where the route runs cannot be decided: try again in a moment (${(error as Error).message})`);
    }
  }

  /**
   * A swap through the pools, once per key: its outcome once final (confirmed with what it gave; reverted or refused
   * with the reason, and for a minimum the pools could not meet, what they would have given). LegPending while it is
   * on its way.
   */
  async swap(leg: ChainSwapLeg): Promise<LegResult> {
    const { environment, chain, key, fromToken, toToken, amountIn, minimumOut, recipient } = leg;
    const request: ChainSwap.Request = { environment, chain, idempotencyKey: key, fromToken, toToken, amountIn, minimumOut, account: ROUTE_EXECUTION, ...(recipient !== undefined && { recipient }) };
    const deadline = Date.now() + LEG_WAIT_MS;
    for (;;) {
      const swap = await this.rpc.call(ChainSwap.contract, systemTenant(environment), request);
      if (swap.status === 'confirmed') return { ok: true, amountOut: swap.amountOut!, transactionHash: swap.transactionHash! };
      if (swap.status === 'failed') {
        const reason = swap.transactionHash ? `${swap.error ?? 'reverted'} (${swap.transactionHash})` : `${swap.error ?? 'refused'} (refused before it was sent)`;
        return { ok: false, reason, ...(swap.wouldGive !== undefined && { wouldGive: swap.wouldGive }) };
      }
      if (Date.now() > deadline) throw new LegPending(`the swap ${key} is ${swap.status} (${swap.transactionHash ?? 'not signed yet'})`);
      await sleep(POLL_MS);
    }
  }
}

/** The platform acting for itself toward the chain service. */
const systemTenant = (environment: Environment) => platformTenant(environment, 'swap-transfer');
