import { reverseMinimum } from './route.steps';

describe('route steps - the way back of a swap leg never goes without a minimum', () => {
  it("asks at least what the leg put in, less the tolerance, to the token's decimals (rounded down)", () => {
    expect(reverseMinimum('100', '0.03', 6)).toBe('97');
    expect(reverseMinimum('12.345678', '0.03', 6)).toBe('11.975307');
    expect(reverseMinimum('0.000000000000000123', '0.02', 18)).toBe('0.00000000000000012');
  });

  it('is never 0: an amount too small to keep a unit after the tolerance asks for the smallest unit', () => {
    expect(reverseMinimum('0.000001', '0.03', 6)).toBe('0.000001');
    expect(reverseMinimum('0.0000001', '0.5', 6)).toBe('0.000001');
  });
});
