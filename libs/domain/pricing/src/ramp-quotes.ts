import { invalidField } from '@ramp/contracts';
import { formatNgn, formatNgnDown, formatRate, formatToken, ROUND_DOWN, NGN_DECIMALS, type Decimal } from '@ramp/money';
import { rampFees, type RampFeeBreakdown, type RampFeeSchedule } from './ramp-fees';

export interface RampFeeStrings {
  providerFee: string;
  platformFee: string;
  swapFee: string;
  totalFee: string;
}

function feeStrings(fees: RampFeeBreakdown): RampFeeStrings {
  return {
    providerFee: formatNgn(fees.providerFee),
    platformFee: formatNgn(fees.platformFee),
    swapFee: formatNgn(fees.swapFee),
    totalFee: formatNgn(fees.totalFee),
  };
}

function tooSmall(fees: Decimal, value: Decimal): never {
  throw invalidField('amount', `is too small: fees of ${formatNgn(fees)} NGN exceed its value of ${formatNgn(value)} NGN`, 'AMOUNT_TOO_SMALL');
}

export interface OfframpPricing {
  cryptoAmount: Decimal;
  tokenSymbol: string;
  tokenDecimals: number;
  /** Naira per token, sell side. */
  rate: Decimal;
  schedule: RampFeeSchedule;
  /**
   * The CNGN (Naira, 1:1) the crypto buys on the market the off-ramp swaps on (the pools of a test chain, see
   * amountThroughPools), when it can say; otherwise the rate prices it.
   */
  market?: (cryptoAmount: Decimal) => Decimal | undefined;
}

/**
 * An off-ramp: `fiatAmount` is the crypto's value on the market (the pools: a large amount moves the price, and `rate`
 * is what it got) or else at the rate, rounded down to the kobo (the base of the fees); the bank account receives
 * `payoutAmount` = fiatAmount − totalFee.
 */
export function priceOfframp(input: OfframpPricing) {
  const onMarket = input.market?.(input.cryptoAmount);
  const fiatAmount = (onMarket ?? input.cryptoAmount.mul(input.rate)).toDecimalPlaces(NGN_DECIMALS, ROUND_DOWN);
  const rate = onMarket ? fiatAmount.div(input.cryptoAmount) : input.rate;
  const fees = rampFees(fiatAmount, input.tokenSymbol, input.schedule);
  const payout = fiatAmount.sub(fees.totalFee);
  if (payout.lessThanOrEqualTo(0)) tooSmall(fees.totalFee, fiatAmount);
  return {
    cryptoAmount: formatToken(input.cryptoAmount, input.tokenDecimals),
    fiatAmount: formatNgnDown(fiatAmount),
    rate: formatRate(rate),
    fees: feeStrings(fees),
    payoutAmount: formatNgnDown(payout),
  };
}

export interface OnrampPricing {
  fiatAmount: Decimal;
  tokenSymbol: string;
  tokenDecimals: number;
  /** Naira per token, buy side. */
  rate: Decimal;
  schedule: RampFeeSchedule;
  /** What the Naira after fees (as CNGN, 1:1) buys of the token on the market the on-ramp swaps on, when it can say. */
  market?: (cngnAmount: Decimal) => Decimal | undefined;
}

/**
 * An on-ramp: the user pays `fiatAmount`; the fees are taken from it and the rest buys the token on the market (the
 * pools, with their price impact) or else at the rate, cut down.
 */
export function priceOnramp(input: OnrampPricing) {
  const fees = rampFees(input.fiatAmount, input.tokenSymbol, input.schedule);
  const net = input.fiatAmount.sub(fees.totalFee);
  if (net.lessThanOrEqualTo(0)) tooSmall(fees.totalFee, input.fiatAmount);
  const onMarket = input.market?.(net);
  const crypto = (onMarket ?? net.div(input.rate)).toDecimalPlaces(input.tokenDecimals, ROUND_DOWN);
  if (crypto.isZero()) tooSmall(fees.totalFee, input.fiatAmount);
  const rate = onMarket ? net.div(crypto) : input.rate;
  return {
    fiatAmount: formatNgn(input.fiatAmount),
    cryptoAmount: formatToken(crypto, input.tokenDecimals),
    rate: formatRate(rate),
    fees: feeStrings(fees),
  };
}
