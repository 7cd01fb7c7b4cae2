import { ByEnvironment } from './by-environment';
import { invalidField } from '@ramp/contracts';
import { dec, Decimal } from '@ramp/money';

/** `buy`: the user pays Naira for the token (on-ramp). `sell`: the user sells the token for Naira (off-ramp). */
export type RateSide = 'buy' | 'sell';

/** Market prices of tokens. A live adapter calls a market data provider; the sandbox answers from a fixed table. */
export interface PriceFeed {
  /** US dollars per one token (mid price). */
  usdPrice(symbol: string): Promise<Decimal>;
  /** Naira per one token, spread included: above the mid price on the buy side, below it on the sell side. */
  ngnRate(symbol: string, side: RateSide): Promise<Decimal>;
  /** Naira per US dollar (mid price). */
  ngnPerUsd(): Promise<Decimal>;
}

/** The Naira stablecoin, minted and redeemed one to one against Naira: its rate is exactly 1 on both sides. */
export const CNGN_SYMBOL = 'CNGN';

export const SANDBOX_NGN_PER_USD = '1500';
/** 0.5%, added on the buy side and taken on the sell side. */
export const SANDBOX_SPREAD = '0.005';
export const SANDBOX_USD_PRICES: Readonly<Record<string, string>> = Object.freeze({
  USDC: '1',
  USDT: '1',
  ETH: '3200',
  cbBTC: '95000',
  BNB: '650',
  POL: '0.40',
  AVAX: '28',
  SOL: '180',
});

export interface SandboxPriceFeedOptions {
  ngnPerUsd?: string | Decimal;
  /** A fraction in [0, 1): 0.005 is 0.5%. */
  spread?: string | Decimal;
  /** US dollar prices by symbol, replacing or adding to the defaults. CNGN's price always follows `ngnPerUsd`. */
  usdPrices?: Readonly<Record<string, string | Decimal>>;
}

/** Echoing a symbol in an error is capped, so a hostile value cannot flood a response. */
const MAX_ECHOED_SYMBOL = 20;

/**
 * Deterministic prices for test keys: by default 1 USD = 1,500 NGN with a 0.5% spread each way and plausible token
 * prices. Every figure is a Decimal: money never passes through a JS number.
 */
export class SandboxPriceFeed implements PriceFeed {
  private readonly ngnPerUsdValue: Decimal;
  private readonly spread: Decimal;
  // A Map rather than an object, so that symbols like "constructor" or "__proto__" find nothing.
  private readonly usdPrices: ReadonlyMap<string, Decimal>;

  constructor(options: SandboxPriceFeedOptions = {}) {
    this.ngnPerUsdValue = dec(options.ngnPerUsd ?? SANDBOX_NGN_PER_USD);
    this.spread = dec(options.spread ?? SANDBOX_SPREAD);
    if (this.ngnPerUsdValue.lessThanOrEqualTo(0)) {
      throw new Error(`ngnPerUsd must be positive, got ${this.ngnPerUsdValue.toFixed()}`);
    }
    if (this.spread.isNegative() || this.spread.greaterThanOrEqualTo(1)) {
      throw new Error(`spread must be in [0, 1), got ${this.spread.toFixed()}`);
    }
    const prices = { ...SANDBOX_USD_PRICES, ...options.usdPrices };
    this.usdPrices = new Map(Object.entries(prices).map(([symbol, price]) => [symbol, dec(price)]));
  }

  async usdPrice(symbol: string): Promise<Decimal> {
    if (symbol === CNGN_SYMBOL) return new Decimal(1).div(this.ngnPerUsdValue);
    const price = this.usdPrices.get(symbol);
    if (price === undefined) throw invalidField('tokenSymbol', `${symbol.slice(0, MAX_ECHOED_SYMBOL)} has no price`, 'UNSUPPORTED_TOKEN');
    return price;
  }

  async ngnRate(symbol: string, side: RateSide): Promise<Decimal> {
    if (symbol === CNGN_SYMBOL) return new Decimal(1);
    const mid = (await this.usdPrice(symbol)).mul(this.ngnPerUsdValue);
    const factor = side === 'buy' ? new Decimal(1).add(this.spread) : new Decimal(1).sub(this.spread);
    return mid.mul(factor);
  }

  async ngnPerUsd(): Promise<Decimal> {
    return this.ngnPerUsdValue;
  }
}

/** The price source of each environment: the sandbox's feed for test keys; live keys have none yet (refused). */
export class PriceFeeds extends ByEnvironment<PriceFeed> {
  constructor(test: PriceFeed, live: PriceFeed | undefined) {
    super('Live quotes need a live price source', test, live);
  }
}
