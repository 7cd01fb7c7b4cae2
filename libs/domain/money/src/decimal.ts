import DecimalJs from 'decimal.js';

/**
 * The one decimal type for money. A private clone so that no other configuration leaks in:
 * 50 significant digits, half-up rounding by default, and toString() never switches to exponent form.
 */
export const Decimal = DecimalJs.clone({
  precision: 50,
  rounding: DecimalJs.ROUND_HALF_UP,
  toExpNeg: -100,
  toExpPos: 100,
});
export type Decimal = InstanceType<typeof Decimal>;

export const ROUND_DOWN = DecimalJs.ROUND_DOWN;
export const ROUND_HALF_UP = DecimalJs.ROUND_HALF_UP;

/** Decimal places of the Naira (kobo). */
export const NGN_DECIMALS = 2;

export function dec(value: string | number | Decimal): Decimal {
  return new Decimal(value);
}

/** The smaller of two decimals. */
export function minDec(a: Decimal, b: Decimal): Decimal {
  return a.lessThan(b) ? a : b;
}
