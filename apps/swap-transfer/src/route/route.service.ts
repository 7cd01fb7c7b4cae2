import { Inject, Injectable } from '@nestjs/common';
import { Config } from '@ramp/config';
import type { InitiatedTransaction, Tenant } from '@ramp/contracts';
import { ChainLegs, LedgerSteps, ProcessFactory, QuoteInitiation, type Job, type StreamProcess, type Preparation } from '@ramp/process-kit';
import { PriceFeeds, ROUTE_RAILS, RouteProviders, type RouteRails } from '@ramp/providers';
import {
  nextRouteStep,
  planOrder,
  NO_VENUES,
  settleLegs,
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
  type RouteInitiated,
  type RouteKind,
  type RouteLegSpec,
  type RouteOrder,
  type RouteState,
  type RouteStep,
} from '@ramp/routing';
import { initiationOf, type TransactionView } from '@ramp/transactions';
import { RouteSteps } from './route.steps';

type RouteProcess = StreamProcess<RouteState, RouteCommand, RouteEvent, RouteStep>;

/** A kind's route: what the customer ordered, where it is delivered, and the router's legs for it. */
interface Route {
  order: RouteOrder;
  destination: RouteDestination;
  legs: RouteLegSpec[];
}

/**
 * Swaps and transfers: initiation from a quote (see QuoteInitiation: every 4xx checked before the quote is used, then
 * the quote used once and the wallet's tokens held before answering) with the route the router gives for it, reads,
 * and each step of the route (RouteSteps; see @ramp/routing).
 */
@Injectable()
export class RouteService {
  private readonly steps: RouteSteps;
  readonly processes: Record<RouteKind, RouteProcess>;

  constructor(
    @Inject(ProcessFactory) factory: ProcessFactory,
    @Inject(ChainLegs) private readonly chainLegs: ChainLegs,
    @Inject(ROUTE_RAILS) rails: RouteRails,
    @Inject(RouteProviders) private readonly routes: RouteProviders,
    @Inject(PriceFeeds) private readonly prices: PriceFeeds,
    @Inject(LedgerSteps) ledger: LedgerSteps,
    @Inject(QuoteInitiation) private readonly initiation: QuoteInitiation,
    @Inject(Config) config: Config,
  ) {
    this.steps = new RouteSteps(rails, this.chainLegs, ledger, config.int('sandboxStepDelayMs'));
    const processOf = (prefix: RouteKind): RouteProcess =>
      factory.define({
        prefix,
        decider: routeDecider,
        nextStep: nextRouteStep,
        dueAt: (step, state) => this.steps.dueAt(step, state),
        view: routeView,
      });
    this.processes = { swap: processOf('swap'), transfer: processOf('transfer') };
  }

  async initiateSwap(tenant: Tenant, request: Record<string, unknown>, requestId?: string): Promise<InitiatedTransaction> {
    return this.initiate('swap', tenant, request, requestId, async ({ quote, wallet, request: initiation }) => {
      const destination = swapDestination(quote, wallet!, initiation.address);
      const { legs } = await this.routes
        .of(tenant.environment)
        .swapRoute({ fromChain: quote.fromChain, toChain: quote.toChain, fromToken: quote.fromToken, toToken: quote.toToken });
      return { order: swapOrder(quote), destination, legs };
    });
  }

  async initiateTransfer(tenant: Tenant, request: Record<string, unknown>, requestId?: string): Promise<InitiatedTransaction> {
    return this.initiate('transfer', tenant, request, requestId, async ({ quote, wallet }) => {
      const { legs } = await this.routes
        .of(tenant.environment)
        .bridgeRoute({ fromChain: quote.fromChain, toChain: quote.toChain, token: quote.fromToken, toToken: quote.toToken });
      return { order: transferOrder(quote), destination: transferDestination(quote, wallet!), legs };
    });
  }

  get(tenant: Tenant, kind: RouteKind, transactionId: unknown): Promise<TransactionView> {
    return this.processes[kind].get(tenant, transactionId);
  }

  /** Runs a claimed job of a swap or a transfer (see StreamProcess.runJob). */
  async runStep(job: Job): Promise<void> {
    const process = this.processes.swap.owns(job.stream_id) ? this.processes.swap : this.processes.transfer;
    await process.runJob(job, (context) => this.steps.perform(context));
  }

  /**
   * Initiates a swap or transfer along the route `routeOf` finds for its quote, each leg planned at the feed's prices
   * (the last delivers the quote's own figures), and where each runs decided once, here (settleLegs).
   */
  private async initiate<K extends RouteKind>(
    kind: K,
    tenant: Tenant,
    request: Record<string, unknown>,
    requestId: string | undefined,
    routeOf: (preparation: Preparation<K>) => Promise<Route>,
  ) {
    const { state } = await this.initiation.initiateFromQuote({
      kind,
      tenant,
      request,
      requestId,
      process: this.processes[kind],
      prepare: async (preparation): Promise<RouteInitiated> => {
        const { order, destination, legs } = await routeOf(preparation);
        const usdPrices = Object.fromEntries(
          await Promise.all(tokensOf(legs).map(async (symbol) => [symbol, (await this.prices.of(tenant.environment).usdPrice(symbol)).toFixed()] as const)),
        );
        const { transactionId, request: initiation, at } = preparation;
        // Swaps on chains with the platform's pools run there, for test keys (settleLegs); the rest on the sandbox's rails.
        const venues = tenant.environment === 'test' ? await this.chainLegs.venues(tenant.environment) : NO_VENUES;
        const plan = settleLegs(planOrder(order, legs, usdPrices), venues);
        return {
          transactionId,
          kind,
          tenant,
          walletId: initiation.walletId!,
          order,
          legs: plan,
          destination,
          reference: initiation.reference,
          callbackUrl: initiation.callbackUrl,
          at: at.toISOString(),
        };
      },
    });
    return initiationOf(routeView(state));
  }
}
