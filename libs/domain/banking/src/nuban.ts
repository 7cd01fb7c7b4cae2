import { invalidField } from '@ramp/contracts';
import { findBank, type Bank } from './banks';

const NUBAN_WEIGHTS = [3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3] as const;
const INSTITUTION_CODE = /^(\d{3}|\d{6})$/;
const SERIAL = /^\d{9}$/;
const ACCOUNT_NUMBER = /^\d{10}$/;

/**
 * The CBN NUBAN check digit (revised standard, which admits 6-digit institution codes): the institution code made
 * 6 digits (a 3-digit bank code is prefixed with "000"), then the 9-digit serial; the 15 digits are weighted
 * 3,7,3,3,7,3,3,7,3,3,7,3,3,7,3 and the check digit is (10 − sum mod 10) mod 10. The "000" prefix adds nothing to
 * the sum, so for 3-digit codes this is the original 12-digit algorithm.
 * Malformed input is a programming error here (callers validate requests first), so it throws a plain Error.
 */
export function nubanCheckDigit(institutionCode: string, serial: string): string {
  if (!INSTITUTION_CODE.test(institutionCode)) throw new Error(`institution code must be 3 or 6 digits, got "${institutionCode}"`);
  if (!SERIAL.test(serial)) throw new Error(`NUBAN serial must be 9 digits, got "${serial}"`);
  const digits = institutionCode.padStart(6, '0') + serial;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += Number(digits[i]) * NUBAN_WEIGHTS[i];
  return String((10 - (sum % 10)) % 10);
}

/** Whether a 10-digit account number carries the right check digit for the bank; false for any malformed input. */
export function isValidNuban(bankCode: string, accountNumber: string): boolean {
  if (!INSTITUTION_CODE.test(bankCode) || !ACCOUNT_NUMBER.test(accountNumber)) return false;
  return nubanCheckDigit(bankCode, accountNumber.slice(0, 9)) === accountNumber[9];
}

/** A valid account number at a bank for a 9-digit serial: the sandbox and tests build accounts with it. */
export function makeNuban(bankCode: string, serial: string): string {
  return serial + nubanCheckDigit(bankCode, serial);
}

/**
 * Checks a bank code and an account number from a request before any provider sees them, and returns the bank.
 * Each failure is INVALID_REQUEST naming the field and the rule; the bank code is checked first.
 */
export function verifyAccountNumberFormat(bankCode: unknown, accountNumber: unknown): Bank {
  if (typeof bankCode !== 'string') {
    throw invalidField('bankCode', 'must be a string holding a bank code from GET /onramp/banks, like "058"');
  }
  const bank = findBank(bankCode);
  if (!bank) throw invalidField('bankCode', 'is not a known Nigerian bank code; see GET /onramp/banks', 'UNKNOWN_BANK');
  if (typeof accountNumber !== 'string') {
    throw invalidField('accountNumber', 'must be a string of exactly 10 digits, like "0123456785"');
  }
  if (!ACCOUNT_NUMBER.test(accountNumber)) throw invalidField('accountNumber', 'must be exactly 10 digits');
  if (!isValidNuban(bank.code, accountNumber)) {
    throw invalidField('accountNumber', `fails the NUBAN check digit for bank ${bank.code}`, 'INVALID_CHECK_DIGIT');
  }
  return bank;
}
