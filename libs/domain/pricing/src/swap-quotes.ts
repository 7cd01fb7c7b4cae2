import { invalidField } from '@ramp/contracts';
import { dec, formatNgn, formatRate, formatToken, ROUND_DOWN, ROUND_HALF_UP, Decimal } from '@ramp/money';

/**
 * Swap and transfer fees. The platform keeps 0.3% of the amount; a bridge costs 0.05% with a 0.50 USD floor (the
 * floor covers destination gas on small transfers). Both are charged in the source token.
 */
export interface SwapFeeSchedule {
  platformFeeRate: string;
  bridgeFeeRate: string;
  bridgeFeeMinUsd: string;
}

export const DEFAULT_SWAP_FEES: SwapFeeSchedule = { platformFeeRate: '0.003', bridgeFeeRate: '0.0005', bridgeFeeMinUsd: '0.50' };

export const DEFAULT_SLIPPAGE_PERCENT = '0.5';

export interface SwapPricing {
  fromAmount: Decimal;
  fromDecimals: number;
  toDecimals: number;
  fromUsd: Decimal;
  toUsd: Decimal;
  ngnPerUsd: Decimal;
  crossChain: boolean;
  slippagePercent: Decimal;
  schedule: SwapFeeSchedule;
  /**
   * What the amount after fees buys on the market the route executes on (the pools of a test chain, see
   * amountThroughPools), when it can say; otherwise the amount is converted at the USD prices.
   */
  market?: (net: Decimal) => Decimal | undefined;
}

/**
 * A swap: fees in the source token (rounded half-up to its decimals), the rest converted on the market (the pools: a
 * large amount moves the price, and `rate` is what it got) or else at fromUsd/toUsd, cut down to the destination
 * decimals; `minimumToAmount` is toAmount less the slippage tolerance, cut down.
 */
export function priceSwap(input: SwapPricing) {
  const inSource = (value: Decimal) => value.toDecimalPlaces(input.fromDecimals, ROUND_HALF_UP);
  const platformFee = inSource(input.fromAmount.mul(input.schedule.platformFeeRate));
  const bridgeFee = input.crossChain
    ? inSource(Decimal.max(input.fromAmount.mul(input.schedule.bridgeFeeRate), dec(input.schedule.bridgeFeeMinUsd).div(input.fromUsd)))
    : dec(0);
  const totalFee = platformFee.add(bridgeFee);
  const net = input.fromAmount.sub(totalFee);
  const onMarket = net.greaterThan(0) ? input.market?.(net) : undefined;
  const toAmount = (onMarket ?? net.mul(input.fromUsd.div(input.toUsd))).toDecimalPlaces(input.toDecimals, ROUND_DOWN);
  const rate = onMarket ? toAmount.div(net) : input.fromUsd.div(input.toUsd);
  if (net.lessThanOrEqualTo(0) || toAmount.isZero()) {
    throw invalidField('amount', `is too small: fees of ${formatToken(totalFee, input.fromDecimals)} exceed what it buys`, 'AMOUNT_TOO_SMALL');
  }
  const minimumToAmount = toAmount.mul(dec(1).sub(input.slippagePercent.div(100))).toDecimalPlaces(input.toDecimals, ROUND_DOWN);
  return {
    fromAmount: formatToken(input.fromAmount, input.fromDecimals),
    toAmount: formatToken(toAmount, input.toDecimals),
    minimumToAmount: formatToken(minimumToAmount, input.toDecimals),
    rate: formatRate(rate, 12),
    fees: {
      platformFee: formatToken(platformFee, input.fromDecimals),
      platformFeeFiat: formatNgn(platformFee.mul(input.fromUsd).mul(input.ngnPerUsd)),
      bridgeFee: formatToken(bridgeFee, input.fromDecimals),
      totalFee: formatToken(totalFee, input.fromDecimals),
    },
  };
}

export type TransferPricing = Omit<SwapPricing, 'slippagePercent'>;

/** A transfer is a swap priced the same way: a bridge fee only across chains, a rate of 1 when the token stays. */
export function priceTransfer(input: TransferPricing) {
  const priced = priceSwap({ ...input, slippagePercent: dec(0) });
  return { fromAmount: priced.fromAmount, toAmount: priced.toAmount, rate: priced.rate, fees: priced.fees };
}

/** Slippage in percent: optional (0.5), a number or a decimal string, above 0 and at most 50. */
export function parseSlippage(raw: unknown, field = 'slippage'): Decimal {
  if (raw === undefined || raw === null) return dec(DEFAULT_SLIPPAGE_PERCENT);
  const text = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : typeof raw === 'string' ? raw : '';
  if (!/^(0|[1-9][0-9]*)(\.[0-9]{1,4})?$/.test(text) || dec(text).lessThanOrEqualTo(0) || dec(text).greaterThan(50)) {
    throw invalidField(field, 'must be a number greater than 0 and at most 50 (percent)');
  }
  return dec(text);
}
