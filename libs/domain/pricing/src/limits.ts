import { invalidField } from '@ramp/contracts';
import { dec, type Decimal } from '@ramp/money';

export interface AmountLimit {
  min: string;
  max: string;
}

/** Minimum and maximum amounts per symbol (`NGN` is the Naira an on-ramp pays). Configurable with AMOUNT_LIMITS. */
export const DEFAULT_AMOUNT_LIMITS: Readonly<Record<string, AmountLimit>> = {
  NGN: { min: '1000', max: '50000000' },
  CNGN: { min: '1000', max: '50000000' },
  USDC: { min: '1', max: '50000' },
  USDT: { min: '1', max: '50000' },
  ETH: { min: '0.0005', max: '20' },
  cbBTC: { min: '0.00001', max: '1' },
  BNB: { min: '0.002', max: '100' },
  POL: { min: '2', max: '150000' },
  AVAX: { min: '0.04', max: '2000' },
  SOL: { min: '0.005', max: '300' },
};

export function checkAmountLimits(amount: Decimal, symbol: string, field: string, limits: Readonly<Record<string, AmountLimit>> = DEFAULT_AMOUNT_LIMITS): void {
  const limit = limits[symbol];
  if (!limit) return;
  if (amount.lessThan(limit.min)) throw invalidField(field, `must be at least ${dec(limit.min).toFixed()} ${symbol}`, 'AMOUNT_TOO_SMALL');
  if (amount.greaterThan(limit.max)) throw invalidField(field, `must be at most ${dec(limit.max).toFixed()} ${symbol}`, 'AMOUNT_TOO_LARGE');
}
