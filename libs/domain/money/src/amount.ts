import { invalidField } from '@ramp/contracts';
import { Decimal, NGN_DECIMALS, ROUND_DOWN, ROUND_HALF_UP } from './decimal';

const PLAIN_DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;
const MAX_AMOUNT_LENGTH = 60;

/**
 * Reads a money amount from a request: a string holding a positive plain decimal number
 * (no sign, no exponent, no leading zeros, no separators) with at most `decimals` places.
 * Anything else is INVALID_REQUEST naming the field and the rule.
 */
export function parseAmount(raw: unknown, field: string, decimals: number): Decimal {
  if (typeof raw !== 'string') {
    throw invalidField(field, 'must be a string holding a decimal number, like "1500.50"');
  }
  if (raw.length === 0 || raw.length > MAX_AMOUNT_LENGTH || !PLAIN_DECIMAL.test(raw)) {
    throw invalidField(field, 'must be a plain decimal number without sign, exponent or separators, like "1500.50"');
  }
  const fraction = raw.split('.')[1] ?? '';
  if (fraction.length > decimals) {
    throw invalidField(field, `must have at most ${decimals} decimal places`);
  }
  const value = new Decimal(raw);
  if (value.lessThanOrEqualTo(0)) {
    throw invalidField(field, 'must be greater than zero');
  }
  return value;
}

/** Naira with kobo, half-up: "1500.50". Used for fees, computed to the kobo. */
export function formatNgn(value: Decimal): string {
  return value.toDecimalPlaces(NGN_DECIMALS, ROUND_HALF_UP).toFixed(NGN_DECIMALS);
}

/** Naira rounded down to the kobo: what is paid out is never more than what the rate gives. */
export function formatNgnDown(value: Decimal): string {
  return value.toDecimalPlaces(NGN_DECIMALS, ROUND_DOWN).toFixed(NGN_DECIMALS);
}

/**
 * A token amount cut down (never up) to the token's decimals, without trailing zeros: "0.5", "12".
 * Rounding down means a quote never promises more than can be delivered.
 */
export function formatToken(value: Decimal, decimals: number): string {
  const cut = value.toDecimalPlaces(decimals, ROUND_DOWN);
  return cut.isZero() ? '0' : cut.toFixed();
}

/** A rate with at most `places` significant decimals, without trailing zeros. */
export function formatRate(value: Decimal, places = 8): string {
  return value.toDecimalPlaces(places, ROUND_HALF_UP).toFixed();
}
