import { AppError } from '@ramp/contracts';
import { Decimal } from './decimal';
import { formatNgn, formatNgnDown, formatRate, formatToken, parseAmount } from './amount';

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('parseAmount', () => {
  it.each([
    ['1', '1'],
    ['1500.50', '1500.5'],
    ['0.000001', '0.000001'],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
  ])('accepts %s', (raw, expected) => {
    expect(parseAmount(raw, 'amount', 6).toFixed()).toBe(expected);
  });

  it.each([
    [1500, 'must be a string'],
    [null, 'must be a string'],
    ['', 'plain decimal'],
    ['-5', 'plain decimal'],
    ['+5', 'plain decimal'],
    ['1e3', 'plain decimal'],
    ['1,000', 'plain decimal'],
    ['01', 'plain decimal'],
    ['.5', 'plain decimal'],
    ['5.', 'plain decimal'],
    [' 5', 'plain decimal'],
    ['NaN', 'plain decimal'],
    ['Infinity', 'plain decimal'],
    ['0', 'greater than zero'],
    ['0.00', 'greater than zero'],
    ['1.1234567', 'at most 6 decimal places'],
  ])('rejects %p naming the field and the rule', (raw, rule) => {
    const error = errorOf(() => parseAmount(raw, 'amount', 6));
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.field).toBe('amount');
    expect(error.message).toMatch(/^amount: /);
    expect(error.message).toContain(rule);
  });

  it('rejects absurdly long numbers before parsing them', () => {
    expect(errorOf(() => parseAmount('9'.repeat(500), 'amount', 2)).field).toBe('amount');
  });
});

describe('formatting', () => {
  it('rounds Naira half-up to the kobo', () => {
    expect(formatNgn(new Decimal('10.005'))).toBe('10.01');
    expect(formatNgn(new Decimal('10.004'))).toBe('10.00');
    expect(formatNgn(new Decimal('20'))).toBe('20.00');
  });

  it('rounds payouts down to the kobo', () => {
    expect(formatNgnDown(new Decimal('10.009'))).toBe('10.00');
  });

  it('cuts token amounts down to the token decimals without trailing zeros', () => {
    expect(formatToken(new Decimal('1.23456789'), 6)).toBe('1.234567');
    expect(formatToken(new Decimal('2.5000'), 18)).toBe('2.5');
    expect(formatToken(new Decimal('0.0000001'), 6)).toBe('0');
  });

  it('never uses exponent notation', () => {
    expect(formatToken(new Decimal('0.000000000000000001'), 18)).toBe('0.000000000000000001');
    expect(formatRate(new Decimal('1e-7'), 10)).toBe('0.0000001');
  });
});
