import { AppError } from '@ramp/contracts';
import { dec, type Decimal } from '@ramp/money';

/**
 * The most one faucet request sends, per token: enough to try any flow (the largest off-ramp is 10M CNGN or its worth),
 * bounded so that nobody drains a shared test chain's faucet in one call.
 */
export const FAUCET_LIMITS: Readonly<Record<string, string>> = Object.freeze({
  USDC: '1000000',
  USDT: '1000000',
  CNGN: '1000000000',
  cbBTC: '100',
  ETH: '100',
  BNB: '1000',
});

/** The faucet's limit of a token (1,000,000 units for a token it does not name). */
export function faucetLimitOf(symbol: string): string {
  return FAUCET_LIMITS[symbol] ?? '1000000';
}

/** Refuses a faucet amount above the token's limit, naming the field and the limit. */
export function checkFaucetAmount(symbol: string, amount: Decimal, field = 'amount'): void {
  const limit = faucetLimitOf(symbol);
  if (amount.gt(dec(limit))) throw new AppError('AMOUNT_TOO_LARGE', `${field}: the faucet sends at most ${limit} ${symbol} per request`, field);
}
