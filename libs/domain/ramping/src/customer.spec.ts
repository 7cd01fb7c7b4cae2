import { AppError } from '@ramp/contracts';
import { parseOnrampCustomer } from './customer';

const payer = { email: 'Ada.Obi@Example.com', firstName: ' Ada ', lastName: 'Obi', phone: '0803 123 4567' };

const fieldOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error.field;
    throw error;
  }
  return undefined;
};

describe('parseOnrampCustomer', () => {
  it('reads a payer, trimmed, its email lowercased and a Nigerian local phone in E.164', () => {
    expect(parseOnrampCustomer(payer, 'live')).toEqual({ email: 'ada.obi@example.com', firstName: 'Ada', lastName: 'Obi', phone: '+2348031234567' });
    expect(parseOnrampCustomer({ ...payer, phone: '+447700900123' }, 'test')!.phone).toBe('+447700900123');
  });

  it('is required with a live key only', () => {
    expect(parseOnrampCustomer(undefined, 'test')).toBeUndefined();
    expect(fieldOf(() => parseOnrampCustomer(undefined, 'live'))).toBe('customer');
  });

  it.each([
    ['not an object', 'ada@example.com', 'customer'],
    ['an array', [payer], 'customer'],
    ['an unknown field', { ...payer, bvn: '22222222222' }, 'customer.bvn'],
    ['no email', { ...payer, email: undefined }, 'customer.email'],
    ['a malformed email', { ...payer, email: 'ada at example.com' }, 'customer.email'],
    ['an empty first name', { ...payer, firstName: '  ' }, 'customer.firstName'],
    ['a long last name', { ...payer, lastName: 'O'.repeat(101) }, 'customer.lastName'],
    ['a numeric phone', { ...payer, phone: 8031234567 }, 'customer.phone'],
    ['a short phone', { ...payer, phone: '0803123' }, 'customer.phone'],
    ['letters in the phone', { ...payer, phone: '+23480ABC34567' }, 'customer.phone'],
  ])('refuses %s', (_case, value, field) => {
    expect(fieldOf(() => parseOnrampCustomer(value, 'test'))).toBe(field);
  });
});
