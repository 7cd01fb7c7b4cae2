import { Inject, Injectable } from '@nestjs/common';
import { verifyAccountNumberFormat } from '@ramp/banking';
import { findToken, OFFRAMP_TOKENS, parseAddress, parseChain, parseToken, PRIMARY_CHAINS, tokenDecimals, type ChainName } from '@ramp/chains';
import { Config } from '@ramp/config';
import { AppError, invalidField, type OfframpQuote, type OnrampQuote, type SwapQuote, type Tenant, type TransferQuote } from '@ramp/contracts';
import { dec, NGN_DECIMALS, parseAmount, ROUND_DOWN, type Decimal } from '@ramp/money';
import {
  amountThroughPools,
  checkAmountLimits,
  DEFAULT_AMOUNT_LIMITS,
  DEFAULT_OFFRAMP_FEES,
  DEFAULT_ONRAMP_FEES,
  DEFAULT_SWAP_FEES,
  parseSlippage,
  livePoolsRefusal,
  hubPath,
  poolDeviations,
  priceOfframp,
  priceOnramp,
  priceSwap,
  priceTransfer,
  worseOfAverageFactor,
  type AmountLimit,
  type HubPools,
  type PoolDeviation,
  type RampFeeSchedule,
  type SwapFeeSchedule,
} from '@ramp/pricing';
import { onchainProviders, placeOf, venuesOf, type RouteLegSpec } from '@ramp/routing';
import { ChainMarkets } from '../chains/chain-markets';
import { BankDirectories, formatDuration, OfframpPayouts, OnrampCollections, PriceFeeds, RouteProviders, type PriceFeed } from '@ramp/providers';

type Priced<T> = Omit<T, 'quoteId' | 'expiresAt'>;

/**
 * Turns a quote request into a priced quote: validates every field against the registries, asks the providers for
 * rates, account names and routes, and applies the fee rules of @ramp/pricing. Nothing here is stored.
 */
@Injectable()
export class QuotePricer {
  private readonly offrampFees: RampFeeSchedule;
  private readonly onrampFees: RampFeeSchedule;
  private readonly swapFees: SwapFeeSchedule;
  private readonly limits: Record<string, AmountLimit>;
  private readonly poolTolerance: Decimal;
  /** A live pool's furthest from its own average (LIVE_POOL_TOLERANCE_PERCENT), as a fraction. */
  private readonly livePoolTolerance: Decimal;
  /** The shortest average a live quote accepts (LIVE_POOL_MIN_AVERAGE_SECONDS). */
  private readonly livePoolMinAverageSeconds: number;
  /** The oldest block a live chain's pools may be read at (LIVE_POOL_MAX_LAG_SECONDS). */
  private readonly livePoolMaxLagSeconds: number;
  /** Each read of a chain's pools (the same object for every quote of its period), with how far its pools are from the feed. */
  private readonly judged = new WeakMap<HubPools, Promise<PoolDeviation[]>>();

  constructor(
    @Inject(PriceFeeds) private readonly prices: PriceFeeds,
    @Inject(BankDirectories) private readonly banks: BankDirectories,
    @Inject(OfframpPayouts) private readonly payouts: OfframpPayouts,
    @Inject(OnrampCollections) private readonly collections: OnrampCollections,
    @Inject(RouteProviders) private readonly routes: RouteProviders,
    @Inject(ChainMarkets) private readonly markets: ChainMarkets,
    @Inject(Config) config: Config,
  ) {
    this.offrampFees = { ...DEFAULT_OFFRAMP_FEES, ...config.json<Partial<RampFeeSchedule>>('offrampFees') };
    this.onrampFees = { ...DEFAULT_ONRAMP_FEES, ...config.json<Partial<RampFeeSchedule>>('onrampFees') };
    this.swapFees = { ...DEFAULT_SWAP_FEES, ...config.json<Partial<SwapFeeSchedule>>('swapFees') };
    this.limits = { ...DEFAULT_AMOUNT_LIMITS, ...config.json<Record<string, AmountLimit>>('amountLimits') };
    this.poolTolerance = dec(config.string('poolPriceTolerancePercent')).div(100);
    this.livePoolTolerance = livePercent(config.string('livePoolTolerancePercent'));
    this.livePoolMinAverageSeconds = config.int('livePoolMinAverageSeconds', 10, 86_400);
    this.livePoolMaxLagSeconds = config.int('livePoolMaxLagSeconds', 5, 3_600);
  }

  async onramp(request: OnrampQuote.Request, tenant: Tenant): Promise<Priced<OnrampQuote.Response>> {
    const chain = parseChain(request.chain, 'chain', PRIMARY_CHAINS);
    const token = parseToken(chain, request.tokenSymbol, 'tokenSymbol');
    const fiatAmount = parseAmount(request.amount, 'amount', NGN_DECIMALS);
    checkAmountLimits(fiatAmount, 'NGN', 'amount', this.limits);
    // Refused before any price is asked when nobody could collect the Naira (a live key without a collection partner).
    this.collections.of(tenant.environment);
    // A live on-ramp is priced by what the treasury's CNGN (one per Naira after the fees) buys on the live chain's DEX
    // now, and only while the treasury holds that CNGN; the sandbox's by its price feed, or its pools on a test chain.
    const [rate, market] =
      tenant.environment === 'live'
        ? [dec(1), await this.liveRampMarket(tenant, chain, 'CNGN', token.symbol)]
        : await Promise.all([this.prices.of(tenant.environment).ngnRate(token.symbol, 'buy'), this.rampMarket(tenant, chain, 'CNGN', token.symbol)]);
    const priced = priceOnramp({ fiatAmount, tokenSymbol: token.symbol, tokenDecimals: token.decimals, rate, schedule: this.onrampFees, market });
    if (tenant.environment === 'live') await this.checkTreasury(tenant, chain, 'CNGN', dec(priced.fiatAmount).sub(priced.fees.totalFee));
    return { ...priced, fiatCurrency: 'NGN', tokenSymbol: token.symbol, chain };
  }

  async offramp(request: OfframpQuote.Request, tenant: Tenant): Promise<Priced<OfframpQuote.Response>> {
    const chain = parseChain(request.chain, 'chain', PRIMARY_CHAINS);
    if (!(OFFRAMP_TOKENS as readonly unknown[]).includes(request.tokenSymbol)) {
      throw invalidField('tokenSymbol', `must be one of ${OFFRAMP_TOKENS.join(', ')}`, 'UNSUPPORTED_TOKEN');
    }
    const token = parseToken(chain, request.tokenSymbol, 'tokenSymbol');
    const cryptoAmount = parseAmount(request.amount, 'amount', token.decimals);
    checkAmountLimits(cryptoAmount, token.symbol, 'amount', this.limits);
    // The NUBAN check runs before any provider call: a mistyped account never reaches the bank directory.
    const bank = verifyAccountNumberFormat(request.bankCode, request.accountNumber);
    // Refused before any partner is asked when nobody could pay it out (a live key without a payout partner).
    this.payouts.of(tenant.environment);
    const directory = this.banks.of(tenant.environment);
    // A live off-ramp is priced by what its swap gives on the live chain's DEX (CNGN, one Naira each); the sandbox's by
    // its price feed, or its pools on a test chain.
    const [rate, market] =
      tenant.environment === 'live'
        ? [dec(1), await this.liveRampMarket(tenant, chain, token.symbol, 'CNGN')]
        : await Promise.all([this.prices.of(tenant.environment).ngnRate(token.symbol, 'sell'), this.rampMarket(tenant, chain, token.symbol, 'CNGN')]);
    const priced = priceOfframp({ cryptoAmount, tokenSymbol: token.symbol, tokenDecimals: token.decimals, rate, schedule: this.offrampFees, market });
    const { accountName } = await directory.resolveAccount(bank.code, request.accountNumber);
    return {
      ...priced,
      tokenSymbol: token.symbol,
      chain,
      fiatCurrency: 'NGN',
      bankAccount: { bankName: bank.name, bankCode: bank.code, accountNumber: request.accountNumber, accountName },
    };
  }

  /**
   * A live ramp's market: `fromToken` swapped to `toToken` (one of them CNGN) on the live chain's DEX, as the ramp
   * service will swap it (CNGN counts one Naira; undefined when both are CNGN: no swap). Refused, before anything is
   * priced, on a chain the platform runs no live chain for (LIVE_MODE_DISABLED) and on one whose pools cannot be
   * trusted now (PRICE_DEVIATION, 503: see checkLivePools); a token without a pool is UNSUPPORTED_TOKEN.
   */
  private async liveRampMarket(tenant: Tenant, chain: string, fromToken: string, toToken: string): Promise<((amount: Decimal) => Decimal) | undefined> {
    const network = (await this.markets.networks(tenant)).find((candidate) => candidate.chain === chain);
    if (!network) throw new AppError('LIVE_MODE_DISABLED', `${chain} has no live chain on this platform yet, and none is configured: use a test key`, 'chain');
    if (fromToken === toToken) return undefined;
    const token = fromToken === 'CNGN' ? toToken : fromToken;
    const dex = network.contracts.dex;
    if (!dex) throw new AppError('LIVE_MODE_DISABLED', `${chain}'s live chain has no DEX to swap ${fromToken} to ${toToken} on: use a test key`, 'chain');
    const legs: RouteLegSpec[] = [{ kind: 'swap', chain, fromToken, toToken, provider: dex.name }];
    const pools = await this.markets.pools(tenant, [chain]);
    this.checkLivePools(legs, pools);
    // Each pool at the worse, for the platform, of its spot price and its own average: one moved toward the customer
    // (within the tolerance) gives the customer nothing the average does not.
    const kept = worseOfAverageFactor(legs, pools);
    return (amount) => {
      const out = amountThroughPools(amount, legs, pools, (symbol, on) => tokenDecimals(symbol, on));
      if (!out) throw invalidField('tokenSymbol', `${token} has no pool with CNGN on ${chain}'s DEX (${dex.name}) to be swapped through`, 'UNSUPPORTED_TOKEN');
      return out.mul(kept).toDecimalPlaces(tokenDecimals(toToken, chain), ROUND_DOWN);
    };
  }

  /**
   * Refuses (INSUFFICIENT_LIQUIDITY, 503) a live quote whose `amount` of `tokenSymbol` the treasury cannot pay on
   * `chain` now: its free inventory there (what the platform holds less what its customers are owed, as the ledger
   * reconciles it; TreasuryInventory) is less. Asked at the quote, not reserved: on-ramps that take the rest meanwhile
   * leave a later one's swap (or a CNGN on-ramp's delivery) short, which fails and refunds the Naira before anything is delivered.
   */
  private async checkTreasury(tenant: Tenant, chain: string, tokenSymbol: string, amount: Decimal): Promise<void> {
    const entry = (await this.markets.inventory(tenant)).find((candidate) => candidate.chain === chain && candidate.tokenSymbol === tokenSymbol);
    const free = entry ? dec(entry.free) : dec(0);
    if (free.lt(amount)) {
      throw new AppError(
        'INSUFFICIENT_LIQUIDITY',
        `The platform's ${tokenSymbol} on ${chain} cannot cover this quote now (it needs ${amount.toFixed()}): ask for a smaller amount, or again later`,
      );
    }
  }

  /**
   * Refuses (PRICE_DEVIATION, 503) to price from a live chain's pools that cannot be trusted now: read at a block older
   * than LIVE_POOL_MAX_LAG_SECONDS (the node lags, and its spot price and average agree while both are stale), without a
   * time-weighted average over at least LIVE_POOL_MIN_AVERAGE_SECONDS (the chain service has not watched the pool that
   * long), or further than LIVE_POOL_TOLERANCE_PERCENT from that average (someone is moving it). Asked again once the
   * pool is back, it quotes.
   */
  private checkLivePools(legs: readonly RouteLegSpec[], pools: ReadonlyMap<string, HubPools>): void {
    const refusal = livePoolsRefusal(legs, pools, {
      tolerance: this.livePoolTolerance,
      minAverageSeconds: this.livePoolMinAverageSeconds,
      maxLagSeconds: this.livePoolMaxLagSeconds,
      now: Math.floor(Date.now() / 1000),
    });
    if (refusal) throw new AppError('PRICE_DEVIATION', refusal);
  }

  async swap(request: SwapQuote.Request, tenant: Tenant): Promise<Priced<SwapQuote.Response>> {
    const fromChain = parseChain(request.fromChain, 'fromChain', PRIMARY_CHAINS);
    const toChain = parseChain(request.toChain, 'toChain', PRIMARY_CHAINS);
    const from = parseToken(fromChain, request.fromToken, 'fromToken');
    const to = parseToken(toChain, request.toToken, 'toToken');
    if (fromChain === toChain && from.symbol === to.symbol) throw invalidField('toToken', 'must differ from fromToken on the same chain');
    const fromAmount = parseAmount(request.amount, 'amount', from.decimals);
    checkAmountLimits(fromAmount, from.symbol, 'amount', this.limits);
    const slippagePercent = parseSlippage(request.slippage);
    const prices = this.prices.of(tenant.environment);
    const routes = this.routes.of(tenant.environment);
    const [fromUsd, toUsd, ngnPerUsd, route] = await Promise.all([
      prices.usdPrice(from.symbol),
      prices.usdPrice(to.symbol),
      prices.ngnPerUsd(),
      routes.swapRoute({ fromChain, toChain, fromToken: from.symbol, toToken: to.symbol }),
    ]);
    const crossChain = fromChain !== toChain;
    const market = await this.market(tenant, route.legs);
    const priced = priceSwap({
      market,
      fromAmount,
      fromDecimals: from.decimals,
      toDecimals: to.decimals,
      fromUsd,
      toUsd,
      ngnPerUsd,
      crossChain,
      slippagePercent,
      schedule: this.swapFees,
    });
    return {
      ...priced,
      fromToken: from.symbol,
      toToken: to.symbol,
      fromChain,
      toChain,
      slippage: slippagePercent.toNumber(),
      isCrossChain: crossChain,
      route: {
        steps: route.steps,
        estimatedTime: formatDuration(route.estimatedSeconds),
        providers: await this.providers(tenant, route.legs, route.providers),
      },
    };
  }

  /**
   * The DEXes and bridges a route goes through, as it will run: a route that runs on the platform's pools
   * (onchainProviders, as swap-transfer decides it at initiation) names their DEX for each leg; any other the router's.
   */
  private async providers(tenant: Tenant, legs: readonly RouteLegSpec[], routed: string[]): Promise<string[]> {
    if (tenant.environment !== 'test') return routed;
    const networks = await this.markets.networks(tenant).catch(() => undefined);
    return onchainProviders(legs.map(placeOf), venuesOf(networks ?? [])) ?? routed;
  }

  /**
   * The route's price on the market it runs on: when a swap of the route is on a chain with the platform's pools (a
   * test chain), the amount after fees goes through those pools as they are now, so that a large trade shows its price
   * impact; otherwise (live keys, chains without pools) undefined, and the price feed's USD prices convert it.
   */
  private async market(tenant: Tenant, legs: readonly RouteLegSpec[]): Promise<((net: Decimal) => Decimal | undefined) | undefined> {
    const swapChains = legs.flatMap((leg) => (leg.kind === 'swap' ? [leg.chain] : []));
    // The platform's pools are on its local test chains: live keys never ask for them.
    if (swapChains.length === 0 || tenant.environment !== 'test') return undefined;
    // Pools that cannot be read (the node or the chain service down) fail the quote (SERVICE_UNAVAILABLE, retried by
    // the caller) rather than price it from the feed: the swap runs on the pools, and a quote from a feed they have
    // drifted from would promise what they do not give and fail on its minimum once initiated.
    const pools = await this.markets.pools(tenant, swapChains);
    if (pools.size === 0) return undefined;
    await this.checkNearFeed(legs, pools, this.prices.of(tenant.environment));
    return (net) => amountThroughPools(net, legs, pools, (symbol, chain) => tokenDecimals(symbol, chain));
  }

  /**
   * Refuses to price from a pool further than POOL_PRICE_TOLERANCE_PERCENT from the price feed (PRICE_DEVIATION, 503):
   * someone just moved it (or drained it), and its price is not the market's. Asked again once it is back, it quotes.
   */
  private async checkNearFeed(legs: readonly RouteLegSpec[], pools: ReadonlyMap<string, HubPools>, prices: PriceFeed): Promise<void> {
    // Each read of a chain's pools is judged once (the same read answers every quote of its period), not per quote.
    const deviations: PoolDeviation[] = [];
    for (const [chain, chainPools] of pools) {
      // The judgement in flight is shared: the quotes that meet a new read together judge it once.
      let judging = this.judged.get(chainPools);
      if (!judging) {
        judging = this.deviationsOf(chain, chainPools, prices);
        this.judged.set(chainPools, judging);
      }
      const judged = await judging;
      const used = new Set(legs.flatMap((leg) => (leg.kind === 'swap' && leg.chain === chain ? hubPath(leg.fromToken, leg.toToken, chainPools.hub) : [])));
      deviations.push(...judged.filter((entry) => used.has(entry.token)));
    }
    const worst = deviations.sort((a, b) => b.deviation.comparedTo(a.deviation))[0];
    if (worst && worst.deviation.gt(this.poolTolerance)) {
      const percent = worst.deviation.mul(100).toDecimalPlaces(1).toFixed();
      throw new AppError(
        'PRICE_DEVIATION',
        `The ${worst.token} pool on ${worst.chain} is priced ${percent}% away from the market (more than ${this.poolTolerance.mul(100).toFixed()}%): no quote is given from it; ask again in a moment`,
      );
    }
  }

  /** How far every pool of one read of a chain's pools is from the price feed. */
  private async deviationsOf(chain: string, chainPools: HubPools, prices: PriceFeed): Promise<PoolDeviation[]> {
    const symbols = [chainPools.hub, ...chainPools.pools.map((pool) => pool.token)];
    const usd = new Map(await Promise.all(symbols.map(async (symbol) => [symbol, await prices.usdPrice(symbol)] as const)));
    const everyPool = chainPools.pools
      .filter((pool) => pool.token !== chainPools.hub)
      .map((pool) => ({ kind: 'swap' as const, chain, fromToken: chainPools.hub, toToken: pool.token }));
    return poolDeviations(
      everyPool,
      new Map([[chain, chainPools]]),
      (symbol, on) => tokenDecimals(symbol, on),
      (symbol) => usd.get(symbol)!,
    );
  }

  /**
   * A ramp's swap between CNGN and its token on the pools it runs on (the ramp service's on-chain settlement, on a test
   * chain with the platform's pools); undefined for CNGN itself (no swap) and where the price feed prices it.
   */
  private async rampMarket(tenant: Tenant, chain: string, fromToken: string, toToken: string) {
    if (fromToken === toToken) return undefined;
    return this.market(tenant, [{ kind: 'swap', chain, fromToken, toToken, provider: 'pools' }]);
  }

  async transfer(request: TransferQuote.Request, tenant: Tenant): Promise<Priced<TransferQuote.Response>> {
    const fromChain = parseChain(request.fromChain, 'fromChain', PRIMARY_CHAINS);
    const toChain: ChainName = parseChain(request.toChain, 'toChain');
    const from = parseToken(fromChain, request.token, 'token');
    const toSymbol = request.toToken ?? from.symbol;
    const to = request.toToken === undefined ? findToken(toChain, from.symbol) : parseToken(toChain, request.toToken, 'toToken');
    if (!to)
      throw invalidField('toToken', `${from.symbol} is not available on ${toChain}; name a toToken that is (see GET /transfer/chains)`, 'UNSUPPORTED_TOKEN');
    const crossChain = fromChain !== toChain;
    if (!crossChain && to.symbol === from.symbol) throw invalidField('toChain', 'must differ from fromChain, or toToken from token');
    let destinationAddress: string | null = null;
    if (request.destinationAddress !== undefined) destinationAddress = parseAddress(toChain, request.destinationAddress, 'destinationAddress');
    else if (crossChain) throw invalidField('destinationAddress', 'is required when toChain differs from fromChain');
    const fromAmount = parseAmount(request.amount, 'amount', from.decimals);
    checkAmountLimits(fromAmount, from.symbol, 'amount', this.limits);
    const prices = this.prices.of(tenant.environment);
    const routes = this.routes.of(tenant.environment);
    const [fromUsd, toUsd, ngnPerUsd, route] = await Promise.all([
      prices.usdPrice(from.symbol),
      prices.usdPrice(toSymbol),
      prices.ngnPerUsd(),
      routes.bridgeRoute({ fromChain, toChain, token: from.symbol, toToken: to.symbol }),
    ]);
    const priced = priceTransfer({
      market: await this.market(tenant, route.legs),
      fromAmount,
      fromDecimals: from.decimals,
      toDecimals: to.decimals,
      fromUsd,
      toUsd,
      ngnPerUsd,
      crossChain,
      schedule: this.swapFees,
    });
    return {
      fromChain,
      toChain,
      fromToken: from.symbol,
      toToken: to.symbol,
      fromAmount: priced.fromAmount,
      toAmount: priced.toAmount,
      destinationAddress,
      fees: priced.fees,
      route: { steps: route.steps, estimatedTime: formatDuration(route.estimatedSeconds), bridge: await this.bridgeName(tenant, route.legs, route.bridge) },
    };
  }

  /** A transfer's bridge as it will run: the platform's intent bridge when the route runs on chain, else the router's. */
  private async bridgeName(tenant: Tenant, legs: readonly RouteLegSpec[], routed: string): Promise<string> {
    const index = legs.findIndex((leg) => leg.kind === 'bridge');
    if (index < 0) return routed;
    return (
      (
        await this.providers(
          tenant,
          legs,
          legs.map((leg) => leg.provider),
        )
      )[index] ?? routed
    );
  }
}

/** LIVE_POOL_TOLERANCE_PERCENT as a fraction: above 0 and at most 10 (percent), refused at start otherwise. */
function livePercent(value: string): Decimal {
  const percent = /^\d+(\.\d+)?$/.test(value.trim()) ? dec(value.trim()) : undefined;
  if (!percent || percent.lte(0) || percent.gt(10))
    throw new Error(`LIVE_POOL_TOLERANCE_PERCENT must be a percent above 0 and at most 10, got ${JSON.stringify(value)}`);
  return percent.div(100);
}
