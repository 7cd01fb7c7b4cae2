/**
 * Token amounts between the API's decimal strings and a chain's integers (base units: wei, USDC's 10^-6), by string
 * arithmetic alone: exact for any number of decimals, never through floating point or a rounding mode.
 */
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** "1.5" with 6 decimals is 1500000n. More fractional digits than the token has is an error, never a rounding. */
export function toBaseUnits(amount: string, decimals: number): bigint {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 77) throw new RangeError(`decimals must be 0 to 77, got ${decimals}`);
  const match = DECIMAL.exec(amount);
  if (!match) throw new RangeError(`not a non-negative decimal amount: "${amount}"`);
  const [, whole, fraction = ''] = match;
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > decimals) throw new RangeError(`"${amount}" has more than ${decimals} decimal places`);
  return BigInt(whole + significant.padEnd(decimals, '0'));
}

/** 1500000n with 6 decimals is "1.5": no trailing zeros, no exponent, "0" for zero. */
export function fromBaseUnits(units: bigint, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 77) throw new RangeError(`decimals must be 0 to 77, got ${decimals}`);
  if (units < 0n) return `-${fromBaseUnits(-units, decimals)}`;
  if (decimals === 0) return units.toString();
  const digits = units.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, -decimals);
  const fraction = digits.slice(-decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}
