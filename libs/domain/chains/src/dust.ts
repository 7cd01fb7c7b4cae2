import { dec } from '@ramp/money';

/**
 * The smallest deposit the platform acts on, per token: about a US cent (10 Naira for CNGN). Below it a deposit is
 * dust: recorded and booked as the platform's (`external:dust-…`), never credited to its owner, swept or refunded,
 * since moving it would cost more gas than it is worth, and anyone could make the platform pay that gas for thousands of
 * addresses. DEPOSIT_MINIMUMS overrides them per symbol.
 */
export const DUST_MINIMUMS: Readonly<Record<string, string>> = Object.freeze({
  USDC: '0.01',
  USDT: '0.01',
  CNGN: '10',
  ETH: '0.000003',
  BNB: '0.00002',
  cbBTC: '0.0000001',
});

/**
 * DEPOSIT_MINIMUMS checked once, at start: each a decimal string of at least zero per token symbol, so that a typo stops
 * the chain service with its name instead of failing the credit of every deposit it meets. Empty: none.
 */
export function parseDepositMinimums(raw: unknown, setting = 'DEPOSIT_MINIMUMS'): Record<string, string> {
  if (raw === undefined) return {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${setting} must be an object of token symbols`);
  for (const [symbol, minimum] of Object.entries(raw)) {
    if (typeof minimum !== 'string' || !/^\d+(\.\d+)?$/.test(minimum))
      throw new Error(`${setting}.${symbol} must be a decimal string, got ${JSON.stringify(minimum)}`);
  }
  return raw as Record<string, string>;
}

/** Whether `amount` of `symbol` is below its minimum (`minimums`: DUST_MINIMUMS with the settings' overrides). */
export function isDust(symbol: string, amount: string, minimums: Readonly<Record<string, string>> = DUST_MINIMUMS): boolean {
  const minimum = minimums[symbol];
  return minimum !== undefined && dec(amount).lt(dec(minimum));
}
