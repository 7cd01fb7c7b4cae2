import { DUST_MINIMUMS, isDust, parseDepositMinimums } from './dust';

describe('dust - deposits too small to act on', () => {
  it("is below the token's minimum, and nothing at or above it", () => {
    expect(isDust('USDC', '0.009999')).toBe(true);
    expect(isDust('USDC', '0.01')).toBe(false);
    expect(isDust('CNGN', '5')).toBe(true);
    expect(isDust('CNGN', '10')).toBe(false);
    expect(isDust('ETH', '0.000000000000000007')).toBe(true);
    expect(isDust('ETH', '0.25')).toBe(false);
  });

  it("takes the settings' minimums over the defaults, and a token without a minimum is never dust", () => {
    expect(isDust('CNGN', '5', { ...DUST_MINIMUMS, CNGN: '1' })).toBe(false);
    expect(isDust('POL', '0.000000000000000001')).toBe(false);
  });

  it('takes DEPOSIT_MINIMUMS as decimal strings per symbol, and names the symbol of anything else', () => {
    expect(parseDepositMinimums(undefined)).toEqual({});
    expect(parseDepositMinimums({ USDC: '0.5', CNGN: '0' })).toEqual({ USDC: '0.5', CNGN: '0' });
    expect(() => parseDepositMinimums({ USDC: 0.5 })).toThrow('DEPOSIT_MINIMUMS.USDC must be a decimal string, got 0.5');
    expect(() => parseDepositMinimums({ USDC: 'ten' })).toThrow('DEPOSIT_MINIMUMS.USDC must be a decimal string, got "ten"');
  });
});
