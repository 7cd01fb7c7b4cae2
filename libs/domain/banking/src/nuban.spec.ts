import { AppError } from '@ramp/contracts';
import { isValidNuban, makeNuban, nubanCheckDigit, verifyAccountNumberFormat } from './nuban';

function rejectionOf(work: () => unknown): { field?: string; message: string } {
  try {
    work();
  } catch (error) {
    if (error instanceof AppError && error.code === 'INVALID_REQUEST') return { field: error.field, message: error.message };
    throw error;
  }
  throw new Error('expected an INVALID_REQUEST');
}

function withCheckDigit(accountNumber: string, digit: number): string {
  return accountNumber.slice(0, 9) + String(digit);
}

describe('nubanCheckDigit', () => {
  it("matches CBN's worked example: bank 011, serial 000001457 gives account 0000014579", () => {
    expect(nubanCheckDigit('011', '000001457')).toBe('9');
    expect(makeNuban('011', '000001457')).toBe('0000014579');
    expect(isValidNuban('011', '0000014579')).toBe(true);
  });

  it('computes a 3-digit bank code by hand: Zenith 057, serial 123456789', () => {
    // 000057123456789 · 373373373373373 = 35+21 + 3+14+9+12+35+18+21+56+27 = 251 → (10 − 1) mod 10 = 9
    expect(makeNuban('057', '123456789')).toBe('1234567899');
  });

  it('computes another 3-digit bank code by hand: GTBank 058, serial 012345678', () => {
    // 000058012345678 · 373373373373373 = 35+24 + 0+7+6+9+28+15+18+49+24 = 215 → 5
    expect(makeNuban('058', '012345678')).toBe('0123456785');
  });

  it('computes a 6-digit institution code by hand: Kuda 090267, serial 200000001', () => {
    // 090267200000001 · 373373373373373 = 63+6+42+21 + 6 + 3 = 141 → 9
    expect(makeNuban('090267', '200000001')).toBe('2000000019');
  });

  it('computes another 6-digit institution code by hand: OPay 100004, serial 812345678', () => {
    // 100004812345678 · 373373373373373 = 3+12 + 24+7+6+9+28+15+18+49+24 = 195 → 5
    expect(makeNuban('100004', '812345678')).toBe('8123456785');
  });

  it('gives 0, not 10, when the sum is a multiple of ten', () => {
    // 000011000000000: 1·7 + 1·3 = 10
    expect(nubanCheckDigit('011', '000000000')).toBe('0');
  });

  it('treats a 3-digit bank code as its 6-digit form with the "000" prefix', () => {
    expect(nubanCheckDigit('000058', '012345678')).toBe(nubanCheckDigit('058', '012345678'));
  });

  it.each([
    ['58', '012345678'],
    ['0058', '012345678'],
    ['05A', '012345678'],
    ['058', '01234567'],
    ['058', '0123456789'],
  ])('refuses a malformed institution code %p or serial %p as a programming error', (code, serial) => {
    expect(() => nubanCheckDigit(code, serial)).toThrow(Error);
  });
});

describe('isValidNuban', () => {
  it.each([
    ['011', '0000014579'],
    ['090267', '2000000019'],
  ])('accepts only the right check digit for %s: each of the nine others fails', (bankCode, valid) => {
    for (let digit = 0; digit <= 9; digit++) {
      const candidate = withCheckDigit(valid, digit);
      expect(isValidNuban(bankCode, candidate)).toBe(candidate === valid);
    }
  });

  it('ties the account to its bank: the same digits fail at another bank', () => {
    expect(isValidNuban('058', '0123456785')).toBe(true);
    expect(isValidNuban('057', '0123456785')).toBe(false);
  });

  it.each([
    ['058', '012345678'],
    ['058', '01234567850'],
    ['058', '01234S6785'],
    ['058', ''],
    ['58', '0123456785'],
  ])('is false, never a throw, for bank %p and account %p', (bankCode, accountNumber) => {
    expect(isValidNuban(bankCode, accountNumber)).toBe(false);
  });
});

describe('verifyAccountNumberFormat', () => {
  const gtbAccount = '0123456785';

  it('returns the bank for a well-formed account', () => {
    expect(verifyAccountNumberFormat('058', gtbAccount)).toEqual({ code: '058', name: 'Guaranty Trust Bank' });
    expect(verifyAccountNumberFormat('090267', '2000000019')).toEqual({ code: '090267', name: 'Kuda Microfinance Bank' });
  });

  it.each([
    ['999', 'bankCode: is not a known Nigerian bank code; see GET /onramp/banks'],
    ['58', 'bankCode: is not a known Nigerian bank code; see GET /onramp/banks'],
    [58, 'bankCode: must be a string holding a bank code from GET /onramp/banks, like "058"'],
    [undefined, 'bankCode: must be a string holding a bank code from GET /onramp/banks, like "058"'],
  ])('refuses bank code %p', (bankCode, message) => {
    expect(rejectionOf(() => verifyAccountNumberFormat(bankCode, gtbAccount))).toEqual({ field: 'bankCode', message });
  });

  it.each([
    ['9 digits', '012345678', 'accountNumber: must be exactly 10 digits'],
    ['11 digits', '01234567850', 'accountNumber: must be exactly 10 digits'],
    ['a letter', '01234S6785', 'accountNumber: must be exactly 10 digits'],
    ['spaces', ' 0123456785', 'accountNumber: must be exactly 10 digits'],
    ['a dash', '01234-6785', 'accountNumber: must be exactly 10 digits'],
    ['a number', 123456785, 'accountNumber: must be a string of exactly 10 digits, like "0123456785"'],
    ['null', null, 'accountNumber: must be a string of exactly 10 digits, like "0123456785"'],
  ])('refuses an account number with %s', (_case, accountNumber, message) => {
    expect(rejectionOf(() => verifyAccountNumberFormat('058', accountNumber))).toEqual({ field: 'accountNumber', message });
  });

  it('refuses each wrong check digit, naming the bank', () => {
    const wrongDigits = [0, 1, 2, 3, 4, 6, 7, 8, 9];
    for (const digit of wrongDigits) {
      expect(rejectionOf(() => verifyAccountNumberFormat('058', withCheckDigit(gtbAccount, digit)))).toEqual({
        field: 'accountNumber',
        message: 'accountNumber: fails the NUBAN check digit for bank 058',
      });
    }
  });

  it('checks the bank code before the account number', () => {
    expect(rejectionOf(() => verifyAccountNumberFormat('999', '12')).field).toBe('bankCode');
  });
});
