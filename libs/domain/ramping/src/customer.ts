import { invalidField } from '@ramp/contracts';

/**
 * The payer of an on-ramp (`customer` of POST /onramp/initiate): a bank partner's dedicated virtual account belongs to
 * a customer of the partner, so a live on-ramp needs one; the sandbox checks it when given and needs none.
 */
export interface OnrampCustomer {
  email: string;
  firstName: string;
  lastName: string;
  /** E.164 (`+2348031234567`); a Nigerian local number (`08031234567`) is given in that form. */
  phone: string;
}

const FIELDS = ['email', 'firstName', 'lastName', 'phone'] as const;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const E164 = /^\+[1-9]\d{7,14}$/;
const NIGERIAN_LOCAL = /^0([789][01]\d{8})$/;

/**
 * `customer` as given, checked field by field (INVALID_FIELD names `customer.<field>`), with its phone in E.164; or
 * undefined when absent, which only a test key may do.
 */
export function parseOnrampCustomer(value: unknown, environment: 'test' | 'live'): OnrampCustomer | undefined {
  if (value === undefined || value === null) {
    if (environment === 'live')
      throw invalidField('customer', 'is required with a live key: the payer (email, firstName, lastName, phone) the bank partner opens the account for');
    return undefined;
  }
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidField('customer', 'must be an object with email, firstName, lastName and phone');
  const given = value as Record<string, unknown>;
  const unknown = Object.keys(given).find((name) => !(FIELDS as readonly string[]).includes(name));
  if (unknown !== undefined) throw invalidField(`customer.${unknown}`, 'is not a field of customer');
  const text = (name: (typeof FIELDS)[number], max: number): string => {
    const field = given[name];
    if (field === undefined || field === null) throw invalidField(`customer.${name}`, 'is required');
    if (typeof field !== 'string') throw invalidField(`customer.${name}`, 'must be a string');
    const trimmed = field.trim();
    if (trimmed === '') throw invalidField(`customer.${name}`, 'must not be empty');
    if (trimmed.length > max) throw invalidField(`customer.${name}`, `must be at most ${max} characters`);
    return trimmed;
  };
  const email = text('email', 254);
  if (!EMAIL.test(email)) throw invalidField('customer.email', 'must be an email address');
  const firstName = text('firstName', 100);
  const lastName = text('lastName', 100);
  const rawPhone = text('phone', 20).replace(/[\s-]/g, '');
  const local = NIGERIAN_LOCAL.exec(rawPhone);
  const phone = local ? `+234${local[1]}` : rawPhone;
  if (!E164.test(phone)) throw invalidField('customer.phone', 'must be a phone number in E.164 (+2348031234567) or a Nigerian local number (08031234567)');
  return { email: email.toLowerCase(), firstName, lastName, phone };
}
