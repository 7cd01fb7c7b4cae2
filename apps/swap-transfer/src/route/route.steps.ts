import { tokenDecimals } from '@ramp/chains';
import { platformTenant, type Tenant } from '@ramp/contracts';
import { dec, Decimal, formatToken } from '@ramp/money';
import { failingEnds, type ChainLegs, type LedgerSteps, type StepContext, type WithInitiation } from '@ramp/process-kit';
import type { LegResult, RouteRails } from '@ramp/providers';
import { legOrder, type RouteCommand, type RouteState, type RouteStep } from '@ramp/routing';
import type { HoldTerms } from '@ramp/transactions';

/**
 * The external account that stands for the DEXes and bridges in the ledger: a route's capture goes to it and a wallet's
 * credit comes from it; on-chain legs book the chain's side against `external:route-execution-<env>-<chain>` (ChainBooks).
 */
export const ROUTE_EXECUTION = 'route-execution';

/** The platform's own organization: its bridges (a leg's way back) are never held by the sandbox's relayer switch. */
const PLATFORM_ORGANIZATION = platformTenant('test', 'swap-transfer').organizationId;

/** The revenue account of the platform's fee on swaps and transfers. */
const SWAP_FEES = 'swap-fees';

/** What a swap or transfer holds in its wallet: the quoted amount of the source token. */
export function routeHold(state: WithInitiation<RouteState>): HoldTerms {
  const { walletId, order } = state.initiated;
  return { walletId, tokenSymbol: order.fromToken, amount: order.fromAmount };
}

/**
 * Each step of a swap or transfer (see nextRouteStep): the ledger's hold, release and capture (LedgerSteps, as for
 * every transaction), and the route rails' legs and their reversals. Each answers the command that records its outcome.
 */
export class RouteSteps {
  constructor(
    private readonly rails: RouteRails,
    private readonly chainLegs: Pick<ChainLegs, 'swap' | 'bridge' | 'fundFromWallet' | 'giveBackToWallet'>,
    private readonly ledger: Pick<LedgerSteps, 'placeHold' | 'releaseHold' | 'captureHold'>,
    private readonly stepDelayMs: number,
  ) {}

  async perform({ transactionId, state, step, tenant }: StepContext<RouteState, RouteStep>): Promise<RouteCommand> {
    const at = () => new Date().toISOString();
    const initiated = state.initiated;
    const { order } = initiated;
    const context = { transactionId, fromAmount: order.fromAmount };
    switch (step.kind) {
      case 'placeHold':
        return this.ledger.placeHold(tenant, transactionId, routeHold(state));
      case 'executeLeg': {
        const leg = legOrder(state, step.index);
        const last = step.index === initiated.legs.length - 1;
        if (leg.settlement === 'onchain') {
          // Through the pools (or the intent bridge): paid to the destination address, into the managed wallet (its own
          // account when its address is one; else kept by the hot wallet for its credit at settle), or kept by the hot
          // wallet for the next leg.
          const recipient = last && initiated.destination.kind === 'address' ? initiated.destination.address : undefined;
          const intoWallet = last && initiated.destination.kind === 'wallet' ? { toWallet: initiated.walletId } : {};
          const key = `${transactionId}:leg:${step.index}`;
          if (leg.kind === 'bridge') {
            // The wallet's funds go to the hot wallet first (from its account, when its address is one: one sponsored
            // operation with the fees kept at the source), and are bridged from there.
            const funded = step.index === 0 ? await this.fundFromWallet(tenant, transactionId, state) : undefined;
            if (funded && !funded.ok) return recordLeg(step.index, funded);
            // A bridge carries what came in: after a swap that gave less, it may no longer reach the leg's minimum
            // (the quote's, on a last leg). Refused before anything is deposited, as a swap's pool would refuse it.
            if (dec(leg.amountOut).lt(leg.minimumOut)) {
              return recordLeg(step.index, {
                ok: false,
                reason: `the bridge would deliver ${leg.amountOut} ${leg.toToken}, below the minimum ${leg.minimumOut}`,
                wouldGive: leg.amountOut,
              });
            }
            const bridge = {
              environment: tenant.environment,
              fromChain: leg.fromChain,
              toChain: leg.toChain,
              idempotencyKey: key,
              token: leg.fromToken,
              amountIn: leg.amountIn,
              amountOut: leg.amountOut,
              account: ROUTE_EXECUTION,
              paysOut: transactionId,
            };
            const bridged = await this.chainLegs.bridge({ ...bridge, organizationId: tenant.organizationId, ...(recipient !== undefined && { recipient }) });
            return recordLeg(step.index, spentBy(bridged, funded));
          }
          // The first leg spends the wallet's funds: from its own account when its address is one, in one operation
          // with the fees kept at the source (to the hot wallet), so that the account gives exactly what the hold takes.
          const fromWallet = step.index === 0 ? { fromWallet: initiated.walletId, ...(dec(order.fees.totalFee).gt(0) && { fee: order.fees.totalFee }) } : {};
          const swap = {
            environment: tenant.environment,
            chain: leg.fromChain,
            idempotencyKey: key,
            fromToken: leg.fromToken,
            toToken: leg.toToken,
            amountIn: leg.amountIn,
            minimumOut: leg.minimumOut,
            account: ROUTE_EXECUTION,
            paysOut: transactionId,
            organizationId: tenant.organizationId,
            ...fromWallet,
            ...intoWallet,
          };
          return recordLeg(step.index, await this.chainLegs.swap({ ...swap, ...(recipient !== undefined && { recipient }) }));
        }
        // The sandbox's rails move nothing on chain: the wallet's funds go to the hot wallet first, as a forwarder
        // wallet's were swept there (from its account, when its address is one), so its account keeps what its
        // balance shows.
        const funded = step.index === 0 ? await this.fundFromWallet(tenant, transactionId, state) : undefined;
        if (funded && !funded.ok) return recordLeg(step.index, funded);
        // On the rails, intermediate legs pay the platform's settlement account on their chain (the route continues from
        // there); the last pays the destination.
        const recipient = last ? initiated.destination.address : this.rails.settlementAddress(leg.toChain);
        const common = { order: context, index: step.index, provider: leg.provider, minimumOut: leg.minimumOut, recipient };
        const result =
          leg.kind === 'swap'
            ? await this.rails.swap({
                ...common,
                chain: leg.fromChain,
                fromToken: leg.fromToken,
                toToken: leg.toToken,
                amountIn: leg.amountIn,
                expectedOut: leg.amountOut,
              })
            : await this.rails.bridge({ ...common, fromChain: leg.fromChain, toChain: leg.toChain, token: leg.fromToken, amount: leg.amountIn });
        return recordLeg(step.index, spentBy(result, funded));
      }
      case 'settle': {
        const delivered = state.executed[state.executed.length - 1]!.amountOut;
        const fee = dec(order.fees.platformFee).gt(0) ? { amount: order.fees.platformFee, account: SWAP_FEES } : undefined;
        const credit = initiated.destination.kind === 'wallet' ? { tokenSymbol: order.toToken, amount: delivered, source: ROUTE_EXECUTION } : undefined;
        return this.ledger.captureHold(tenant, transactionId, { destination: ROUTE_EXECUTION, fee, credit });
      }
      case 'reverseLeg': {
        const leg = initiated.legs[step.index]!;
        if (leg.settlement === 'onchain' && leg.kind === 'bridge') {
          // Bridged back to the source chain's hot wallet, as much as arrived: the platform's own way back, which the
          // sandbox's relayer switch never holds. The platform is the relayer on both chains, so whether the way back
          // is filled or refunded (or too small to send), the books and the chains agree and the customer's hold is
          // released whole: only where the platform's inventory sits differs. It is recorded either way, never retried
          // for ever.
          const executed = state.executed[step.index]!;
          const amountOut = formatToken(dec(executed.amountOut), tokenDecimals(leg.toToken, leg.fromChain, leg.toChain));
          if (dec(amountOut).isZero()) return { type: 'recordReversal', index: step.index, transactionHash: executed.transactionHash, at: at() };
          const back = await this.chainLegs.bridge({
            environment: tenant.environment,
            fromChain: leg.toChain,
            toChain: leg.fromChain,
            idempotencyKey: `${transactionId}:reverse:${step.index}`,
            token: leg.toToken,
            amountIn: executed.amountOut,
            amountOut,
            organizationId: PLATFORM_ORGANIZATION,
            account: ROUTE_EXECUTION,
            paysOut: transactionId,
          });
          return {
            type: 'recordReversal',
            index: step.index,
            transactionHash: back.ok ? back.transactionHash : (back.transactionHash ?? executed.transactionHash),
            at: at(),
          };
        }
        if (leg.settlement === 'onchain') {
          // Swapped back on the same pools into the hot wallet: the hold is released whole, and what the round trip cost
          // stays in the books of route-execution there. Never without a minimum (a front-runner would take the rest):
          // first what the leg put in less REVERSE_TOLERANCE; if the pools moved further, once more at what they would
          // give now (the failed attempt says) less 2%; then an operator's.
          const back = {
            environment: tenant.environment,
            chain: leg.fromChain,
            fromToken: leg.toToken,
            toToken: leg.fromToken,
            amountIn: state.executed[step.index]!.amountOut,
            account: ROUTE_EXECUTION,
            paysOut: transactionId,
          };
          const decimals = tokenDecimals(leg.fromToken, leg.fromChain, leg.fromChain);
          const first = await this.chainLegs.swap({
            ...back,
            idempotencyKey: `${transactionId}:reverse:${step.index}`,
            minimumOut: reverseMinimum(leg.amountIn, REVERSE_TOLERANCE, decimals),
          });
          const done =
            first.ok || first.wouldGive === undefined || !dec(first.wouldGive).gt(0)
              ? first
              : await this.chainLegs.swap({
                  ...back,
                  idempotencyKey: `${transactionId}:reverse:${step.index}:market`,
                  minimumOut: reverseMinimum(first.wouldGive, '0.02', decimals),
                });
          if (!done.ok) throw new Error(`the way back of leg ${step.index} of ${transactionId} failed on chain: ${done.reason}; an operator must look`);
          // The first leg took the held amount out of the wallet (its account, when its address is one): the hot wallet
          // gives it back whole before the hold is released, so the account holds what the books say.
          if (step.index === 0) await this.giveBack(tenant, transactionId, state, `${transactionId}:reverse:0:wallet`);
          return { type: 'recordReversal', index: step.index, transactionHash: done.transactionHash, at: at() };
        }
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
      case 'releaseHold': {
        const first = initiated.legs[0]!;
        if (!(first.settlement === 'onchain' && first.kind === 'swap')) {
          // Its first leg moved the wallet's funds to the hot wallet (asked again: that transfer's outcome, never a
          // second one): they go back whole to the wallet's account before the hold is released (for a forwarder
          // wallet, whose funds the hot wallet holds, nothing moves either way).
          const funded = await this.fundFromWallet(tenant, transactionId, state);
          if (funded?.ok) await this.giveBack(tenant, transactionId, state, `${transactionId}:leg:0:fund:back`);
        }
        return this.ledger.releaseHold(tenant, transactionId, routeHold(state));
      }
      case 'fail':
        return failingEnds(state);
      case 'none':
        throw new Error(`${transactionId} has no step to perform`);
    }
  }

  /**
   * A route whose first leg is not a swap on chain (a bridge, or the sandbox's rails): the held amount (`amountIn` and
   * the fees kept at the source) moved from the wallet to the source chain's hot wallet, once per transaction.
   */
  private fundFromWallet(tenant: Tenant, transactionId: string, state: WithInitiation<RouteState>): Promise<LegResult | undefined> {
    const { walletId, order, legs } = state.initiated;
    const leg = legs[0]!;
    return this.chainLegs.fundFromWallet({
      environment: tenant.environment,
      chain: leg.fromChain,
      idempotencyKey: `${transactionId}:leg:0:fund`,
      walletId,
      tokenSymbol: leg.fromToken,
      amount: leg.amountIn,
      fee: order.fees.totalFee,
      account: ROUTE_EXECUTION,
      paysOut: transactionId,
      organizationId: tenant.organizationId,
    });
  }

  /** The held amount given back whole to the wallet. */
  private giveBack(tenant: Tenant, transactionId: string, state: WithInitiation<RouteState>, idempotencyKey: string): Promise<void> {
    const { walletId, order } = state.initiated;
    return this.chainLegs.giveBackToWallet({
      environment: tenant.environment,
      chain: order.fromChain,
      idempotencyKey,
      walletId,
      tokenSymbol: order.fromToken,
      amount: order.fromAmount,
      account: ROUTE_EXECUTION,
      paysOut: transactionId,
    });
  }

  /**
   * When a step runs: a leg or its reversal after the sandbox provider's delay, everything else now (an on-chain leg
   * takes the chain's own time; the delay is the sandbox rails').
   */
  dueAt(step: RouteStep, state: RouteState): Date {
    const onchain = (step.kind === 'executeLeg' || step.kind === 'reverseLeg') && state.initiated?.legs[step.index]?.settlement === 'onchain';
    if ((step.kind === 'executeLeg' || step.kind === 'reverseLeg') && !onchain) return new Date(Date.now() + this.stepDelayMs);
    return new Date();
  }
}

/** How much less than a leg put in its way back on the pools may give: the two trades' fees and a moved price. */
const REVERSE_TOLERANCE = '0.03';

/** `amount` less `tolerance` (a fraction), rounded down to the token's decimals, and never below its smallest unit. */
export function reverseMinimum(amount: string, tolerance: string, decimals: number): string {
  const minimum = dec(amount).mul(dec(1).sub(tolerance)).toDecimalPlaces(decimals, Decimal.ROUND_DOWN);
  const unit = dec(1).div(dec(10).pow(decimals));
  return (minimum.gt(0) ? minimum : unit).toFixed();
}

/** A first leg's result with the UserOperation that moved the wallet's funds to the hot wallet before it (fundFromWallet). */
function spentBy(result: LegResult, funded: LegResult | undefined): LegResult {
  return result.ok && funded?.ok && funded.userOperationHash !== undefined ? { ...result, userOperationHash: funded.userOperationHash } : result;
}

function recordLeg(index: number, result: LegResult): RouteCommand {
  const at = new Date().toISOString();
  return result.ok
    ? {
        type: 'recordLeg',
        index,
        ok: true,
        amountOut: result.amountOut,
        transactionHash: result.transactionHash,
        ...(result.userOperationHash !== undefined && { userOperationHash: result.userOperationHash }),
        at,
      }
    : {
        type: 'recordLeg',
        index,
        ok: false,
        reason: result.reason,
        wouldGive: result.wouldGive,
        ...(result.transactionHash !== undefined && { transactionHash: result.transactionHash }),
        at,
      };
}
