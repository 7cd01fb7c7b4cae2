import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { Config } from '@ramp/config';
import {
  HoldPlace,
  HoldSettle,
  invalidField,
  newId,
  QuoteConsume,
  QuotePeek,
  WalletGet,
  type SwapQuote,
  type Tenant,
  type TransferQuote,
  type WalletView,
} from '@ramp/contracts';
import { beforeAnyEffect, RpcClient } from '@ramp/messaging';
import { dec } from '@ramp/money';
import { checkWalletCanPay, isRefusal, JobQueue, optionalString, parseCallbackUrl, StreamProcess, withoutField, type Cause, type Job } from '@ramp/process-kit';
import { PRICE_FEED, ROUTE_PROVIDER, ROUTE_RAILS, type PriceFeed, type RouteProvider, type RouteRails } from '@ramp/providers';
import {
  legOrder,
  nextRouteStep,
  planOrder,
  tokensOf,
  routeDecider,
  routeView,
  swapDestination,
  swapOrder,
  transferDestination,
  transferOrder,
  type RouteCommand,
  type RouteDestination,
  type RouteEvent,
  type RouteKind,
  type RouteLegSpec,
  type RouteOrder,
  type RouteState,
  type RouteStep,
} from '@ramp/routing';
import { LOGGER, PG_POOL, type Logger } from '@ramp/service-kit';
import type { TransactionView } from '@ramp/transactions';
import { SWAP_TRANSFER_LOG } from '../process/log';
import { AllowedHosts } from '@ramp/webhooks';

/** The external account that stands for the DEXes and bridges in the ledger, and the revenue account of the fees. */
const ROUTE_EXECUTION = 'route-execution';
const SWAP_FEES = 'swap-fees';

type RouteProcess = StreamProcess<RouteState, RouteCommand, RouteEvent, RouteStep>;

/** Reads a quote's order and destination, and asks the router for its legs, once the quote and the wallet are known. */
type Prepare = (quote: SwapQuote.Response | TransferQuote.Response, wallet: WalletView) => Promise<{ order: RouteOrder; destination: RouteDestination; legs: RouteLegSpec[] }>;

/**
 * Swaps and transfers: initiation (every 4xx checked before the quote is used, then the quote used once and the
 * wallet's tokens held before answering), reads, and each step of the route (see @ramp/routing).
 */
@Injectable()
export class RouteService {
  private readonly stepDelayMs: number;
  readonly processes: Record<RouteKind, RouteProcess>;

  constructor(
    @Inject(PG_POOL) pool: Pool,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(ROUTE_RAILS) private readonly rails: RouteRails,
    @Inject(ROUTE_PROVIDER) private readonly routes: RouteProvider,
    @Inject(PRICE_FEED) private readonly prices: PriceFeed,
    @Inject(JobQueue) jobs: JobQueue,
    @Inject(Config) config: Config,
    @Inject(AllowedHosts) private readonly callbackHosts: AllowedHosts,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.stepDelayMs = config.int('sandboxStepDelayMs');
    const processOf = (prefix: RouteKind): RouteProcess =>
      new StreamProcess(pool, SWAP_TRANSFER_LOG, jobs, {
        prefix,
        systemActor: 'system:swap-transfer',
        decider: routeDecider,
        nextStep: nextRouteStep,
        dueAt: (step) => this.dueAt(step),
        tenantOf: (state) => state.initiated?.tenant,
      });
    this.processes = { swap: processOf('swap'), transfer: processOf('transfer') };
  }

  async initiateSwap(tenant: Tenant, request: Record<string, unknown>, requestId?: string): Promise<TransactionView> {
    const destinationAddress = optionalString(request['destinationAddress'], 'destinationAddress');
    return this.initiate(tenant, 'swap', request, requestId, async (quoted, wallet) => {
      const quote = quoted as SwapQuote.Response;
      const destination = swapDestination(quote, wallet, destinationAddress);
      const { legs } = await this.routes.swapRoute({ fromChain: quote.fromChain, toChain: quote.toChain, fromToken: quote.fromToken, toToken: quote.toToken });
      return { order: swapOrder(quote), destination, legs };
    });
  }

  async initiateTransfer(tenant: Tenant, request: Record<string, unknown>, requestId?: string): Promise<TransactionView> {
    return this.initiate(tenant, 'transfer', request, requestId, async (quoted, wallet) => {
      const quote = quoted as TransferQuote.Response;
      const { legs } = await this.routes.bridgeRoute({ fromChain: quote.fromChain, toChain: quote.toChain, token: quote.fromToken, toToken: quote.toToken });
      return { order: transferOrder(quote), destination: transferDestination(quote, wallet), legs };
    });
  }

  async get(tenant: Tenant, kind: RouteKind, transactionId: unknown): Promise<TransactionView> {
    return routeView(await this.processes[kind].ownedBy(tenant, transactionId));
  }

  /** Runs a claimed job of a swap or a transfer (see StreamProcess.runJob). */
  async runStep(job: Job): Promise<void> {
    const process = this.processes.swap.owns(job.stream_id) ? this.processes.swap : this.processes.transfer;
    await process.runJob(job, ({ transactionId, state, step, tenant }) => this.perform(transactionId, state, step, tenant));
  }

  private async initiate(tenant: Tenant, kind: RouteKind, request: Record<string, unknown>, requestId: string | undefined, prepare: Prepare): Promise<TransactionView> {
    const quoteId = request['quoteId'];
    if (typeof quoteId !== 'string' || quoteId === '') throw invalidField('quoteId', 'is required');
    const walletId = optionalString(request['walletId'], 'walletId');
    if (!walletId) throw invalidField('walletId', `is required: the managed wallet the ${kind} is paid from`);
    const reference = optionalString(request['reference'], 'reference') ?? null;
    const callbackUrl = parseCallbackUrl(request['callbackUrl'], this.callbackHosts);

    const { quoted, wallet } = await beforeAnyEffect(async () => ({
      quoted: (await this.rpc.call(QuotePeek.contract, tenant, { quoteId, kind }, { requestId })).quote as SwapQuote.Response | TransferQuote.Response,
      wallet: await this.rpc.call(WalletGet.contract, tenant, { walletId }, { requestId }),
    }));
    checkWalletCanPay(wallet, quoted.fromChain, quoted.fromToken, quoted.fromAmount);
    const { order, destination, legs } = await prepare(quoted, wallet);
    const usdPrices = Object.fromEntries(await Promise.all(tokensOf(legs).map(async (symbol) => [symbol, (await this.prices.usdPrice(symbol)).toFixed()] as const)));
    const plan = planOrder(order, legs, usdPrices);

    const transactionId = newId('txn');
    await this.rpc.call(QuoteConsume.contract, tenant, { quoteId, kind, consumer: transactionId }, { requestId });
    const process = this.processes[kind];
    const cause: Cause = { causationId: requestId ?? transactionId, actor: `key:${tenant.keyId}`, requestId };
    let state = await process.apply(
      transactionId,
      tenant,
      { type: 'initiate', data: { transactionId, kind, tenant, walletId, order, legs: plan, destination, reference, callbackUrl, at: new Date().toISOString() } },
      cause,
    );
    // The wallet is debited before the answer: its balance shows the hold at once. If the ledger cannot be reached
    // now, the job written with the initiation places the hold shortly (it is idempotent by transaction id).
    try {
      const command = await this.perform(transactionId, state, { kind: 'placeHold' }, tenant);
      state = await process.apply(transactionId, tenant, command, cause);
    } catch (error) {
      this.logger.warn({ err: error, transactionId }, 'hold not placed at initiation; its job places it');
    }
    return routeView(state);
  }

  /** Performs one step and answers the command that records its outcome. */
  private async perform(transactionId: string, state: RouteState, step: RouteStep, tenant: Tenant): Promise<RouteCommand> {
    const at = () => new Date().toISOString();
    const initiated = state.initiated!;
    const { order } = initiated;
    const context = { transactionId, fromAmount: order.fromAmount };
    switch (step.kind) {
      case 'placeHold':
        try {
          const hold = await this.rpc.call(HoldPlace.contract, tenant, { holdId: transactionId, walletId: initiated.walletId, tokenSymbol: order.fromToken, amount: order.fromAmount });
          // Settled already: a failure released it (or recorded it as never placed) while this placement was in flight.
          if (hold.status !== 'held') return { type: 'fail', reason: `The wallet could not be debited: the hold is already ${hold.status}`, at: at() };
          return { type: 'recordFundsHeld', at: at() };
        } catch (error) {
          if (!isRefusal(error)) throw error;
          return { type: 'fail', reason: `The wallet could not be debited: ${withoutField(error.message)}`, at: at() };
        }
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
        await this.rpc.call(HoldSettle.contract, tenant, { holdId: transactionId, outcome: 'capture', destination: ROUTE_EXECUTION, fee, credit });
        return { type: 'complete', at: at() };
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
        await this.rpc.call(HoldSettle.contract, tenant, {
          holdId: transactionId,
          outcome: 'release',
          ifMissing: { walletId: initiated.walletId, tokenSymbol: order.fromToken, amount: order.fromAmount },
        });
        return { type: 'recordFundsReleased', at: at() };
      case 'fail':
        return { type: 'fail', reason: state.failing ?? 'failed', at: at() };
      case 'none':
        throw new Error(`${transactionId} has no step to perform`);
    }
  }

  private dueAt(step: RouteStep): Date {
    if (step.kind === 'executeLeg' || step.kind === 'reverseLeg') return new Date(Date.now() + this.stepDelayMs);
    return new Date();
  }
}
