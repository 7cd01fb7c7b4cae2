import { fromBaseUnits, toBaseUnits } from './base-units';

describe('base units - decimal strings to a chain integer and back, exactly', () => {
  it.each([
    ['1.5', 6, 1_500_000n],
    ['0.000001', 6, 1n],
    ['100', 6, 100_000_000n],
    ['1.10', 6, 1_100_000n],
    ['0', 18, 0n],
    ['123456789.123456789123456789', 18, 123456789123456789123456789n],
    ['0.00000001', 8, 1n],
    ['7', 0, 7n],
  ])('%s with %i decimals is %s base units', (amount, decimals, units) => {
    expect(toBaseUnits(amount, decimals)).toBe(units);
  });

  it.each([
    [1_500_000n, 6, '1.5'],
    [1n, 18, '0.000000000000000001'],
    [0n, 6, '0'],
    [100_000_000n, 6, '100'],
    [-2_500_000n, 6, '-2.5'],
    [42n, 0, '42'],
  ])('%s base units with %i decimals is "%s"', (units, decimals, amount) => {
    expect(fromBaseUnits(units, decimals)).toBe(amount);
  });

  it('refuses what would need rounding or is not a plain non-negative decimal', () => {
    expect(() => toBaseUnits('0.0000001', 6)).toThrow('more than 6 decimal places');
    for (const bad of ['-1', '1e6', '', '.5', '1.', ' 1', '0x10', 'NaN']) expect(() => toBaseUnits(bad, 6)).toThrow('not a non-negative decimal');
    expect(() => toBaseUnits('1', -1)).toThrow('decimals');
    expect(() => fromBaseUnits(15n, -1)).toThrow('decimals');
    expect(() => fromBaseUnits(15n, 1.5)).toThrow('decimals');
  });

  it('round-trips every amount a token can hold', () => {
    for (const decimals of [0, 2, 6, 8, 18]) {
      for (const units of [0n, 1n, 9n, 10n, 123456789n, 10n ** 30n + 7n]) expect(toBaseUnits(fromBaseUnits(units, decimals), decimals)).toBe(units);
    }
  });
});
