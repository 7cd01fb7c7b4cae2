import { findBank, NIGERIAN_BANKS, type Bank } from './banks';

describe('NIGERIAN_BANKS', () => {
  it('has unique codes, each a 3-digit CBN code or a 6-digit NIBSS code', () => {
    const codes = NIGERIAN_BANKS.map((bank) => bank.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(code).toMatch(/^(\d{3}|\d{6})$/);
  });

  it('is sorted by name, as GET /onramp/banks shows it', () => {
    const names = NIGERIAN_BANKS.map((bank) => bank.name);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en')));
  });

  it.each([
    ['011', 'First Bank of Nigeria'],
    ['033', 'United Bank for Africa'],
    ['044', 'Access Bank'],
    ['057', 'Zenith Bank'],
    ['058', 'Guaranty Trust Bank'],
    ['214', 'First City Monument Bank'],
    ['090267', 'Kuda Microfinance Bank'],
    ['090405', 'Moniepoint Microfinance Bank'],
    ['100004', 'OPay'],
    ['100033', 'PalmPay'],
  ])('finds %s as %s', (code, name) => {
    expect(findBank(code)?.name).toBe(name);
  });

  it.each(['58', '0058', ' 058', '030', '999', ''])('finds no bank for %p', (code) => {
    expect(findBank(code)).toBeUndefined();
  });

  it('cannot be changed by a caller', () => {
    expect(() => (NIGERIAN_BANKS as Bank[]).push({ code: '999', name: 'Fake Bank' })).toThrow(TypeError);
    expect(() => {
      (NIGERIAN_BANKS[0] as { name: string }).name = 'Renamed';
    }).toThrow(TypeError);
  });
});
