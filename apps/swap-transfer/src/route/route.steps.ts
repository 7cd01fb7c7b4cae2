import { dec } from '@ramp/money';
import { failingEnds, type LedgerSteps, type StepContext } from '@ramp/process-kit';
import type { RouteRails } from '@ramp/providers';
import { legOrder, type RouteCommand, type RouteState, type RouteStep } from '@ramp/routing';
import type { HoldTerms } from '@ramp/transactions';

/** The external account that stands for the DEXes and bridges in the ledger, and the revenue account of the fees. */
const ROUTE_EXECUTION = 'route-execution';
const SWAP_FEES = 'swap-fees';

/** What a swap or transfer holds in its wallet: the quoted amount of the source token. */
export function routeHold(state: RouteState): HoldTerms {
  const { walletId, order } = state.initiated!;
  return { walletId, tokenSymbol: order.fromToken, amount: order.fromAmount };
}

/**
 * Each step of a swap or transfer (see nextRouteStep): the ledger's hold, release and capture (LedgerSteps, as for
 * every transaction), and the route rails' legs and their reversals. Each answers the command that records its outcome.
 */
export class RouteSteps {
  constructor(
    private readonly rails: RouteRails,
    private readonly ledger: Pick<LedgerSteps, 'placeHold' | 'releaseHold' | 'captureHold'>,
    private readonly stepDelayMs: number,
  ) {}

  async perform({ transactionId, state, step, tenant }: StepContext<RouteState, RouteStep>): Promise<RouteCommand> {
    const at = () => new Date().toISOString();
    const initiated = state.initiated!;
    const { order } = initiated;
    const context = { transactionId, fromAmount: order.fromAmount };
    switch (step.kind) {
      case 'placeHold':
        return this.ledger.placeHold(tenant, transactionId, routeHold(state));
      case 'executeLeg': {
        const leg = legOrder(state, step.index);
        const last = step.index === initiated.legs.length - 1;
        // Intermediate legs pay the platform's settlement account on their chain (the route continues from there); the
        // last pays the destination.
        const recipient = last ? initiated.destination.address : this.rails.settlementAddress(leg.toChain);
        const common = { order: context, index: step.index, provider: leg.provider, minimumOut: leg.minimumOut, recipient };
        const result =
          leg.kind === 'swap'
            ? await this.rails.swap({ ...common, chain: leg.fromChain, fromToken: leg.fromToken, toToken: leg.toToken, amountIn: leg.amountIn, expectedOut: leg.amountOut })
            : await this.rails.bridge({ ...common, fromChain: leg.fromChain, toChain: leg.toChain, token: leg.fromToken, amount: leg.amountIn });
        return result.ok
          ? { type: 'recordLeg', index: step.index, ok: true, amountOut: result.amountOut, transactionHash: result.transactionHash, at: at() }
          : { type: 'recordLeg', index: step.index, ok: false, reason: result.reason, wouldGive: result.wouldGive, at: at() };
      }
      case 'settle': {
        const delivered = state.executed[state.executed.length - 1]!.amountOut;
        const fee = dec(order.fees.platformFee).gt(0) ? { amount: order.fees.platformFee, account: SWAP_FEES } : undefined;
        const credit = initiated.destination.kind === 'wallet' ? { tokenSymbol: order.toToken, amount: delivered, source: ROUTE_EXECUTION } : undefined;
        return this.ledger.captureHold(tenant, transactionId, { destination: ROUTE_EXECUTION, fee, credit });
      }
      case 'reverseLeg': {
        const leg = initiated.legs[step.index]!;
        const reversal = await this.rails.reverse({
          order: context,
          index: step.index,
          kind: leg.kind,
          provider: leg.provider,
          fromChain: leg.fromChain,
          toChain: leg.toChain,
          token: leg.toToken,
          amount: state.executed[step.index]!.amountOut,
        });
        return { type: 'recordReversal', index: step.index, transactionHash: reversal.transactionHash, at: at() };
      }
      case 'releaseHold':
        return this.ledger.releaseHold(tenant, transactionId, routeHold(state));
      case 'fail':
        return failingEnds(state);
      case 'none':
        throw new Error(`${transactionId} has no step to perform`);
    }
  }

  /** When a step runs: a leg or its reversal after the provider's delay, everything else now. */
  dueAt(step: RouteStep): Date {
    if (step.kind === 'executeLeg' || step.kind === 'reverseLeg') return new Date(Date.now() + this.stepDelayMs);
    return new Date();
  }
}
