import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { findBank, NIGERIAN_BANKS, type Bank } from '@ramp/banking';
import { invalidField } from '@ramp/contracts';
import { ByEnvironment } from './by-environment';

/**
 * Name enquiry: who holds an account. A live adapter asks NIBSS through a payment provider; callers check the
 * format first (`verifyAccountNumberFormat`), so an adapter only answers whether the account exists and whose it is.
 */
export interface BankDirectory {
  /** The banks an account can be verified at and paid to, with the platform's codes (CBN or NIBSS). */
  listBanks(): Promise<Bank[]>;
  resolveAccount(bankCode: string, accountNumber: string): Promise<{ accountName: string }>;
}

/**
 * Sandbox magic value: an account number whose 9-digit serial (its first 9 digits) is this does not exist at any
 * bank, so integrators can test the "no such account" path. `makeNuban(bankCode, SANDBOX_MISSING_ACCOUNT_SERIAL)`
 * builds one that passes the format check.
 */
export const SANDBOX_MISSING_ACCOUNT_SERIAL = '999999999';

interface NamePool {
  firstNames: readonly string[];
  surnames: readonly string[];
}

/** Names from Nigeria's three largest groups; a holder's first name and surname come from the same group. */
const NAME_POOLS: readonly NamePool[] = [
  {
    // Yoruba
    firstNames: ['ADEBAYO', 'OLUWASEUN', 'TEMITOPE', 'FUNMILAYO', 'BABATUNDE', 'KEHINDE', 'ADEOLA', 'YETUNDE', 'OLUMIDE', 'FOLAKE'],
    surnames: ['ADEYEMI', 'OGUNLEYE', 'OLAWALE', 'ADELEKE', 'BALOGUN', 'AKINWALE', 'ODUNSI', 'FASHOLA', 'OYELARAN', 'ADEBISI'],
  },
  {
    // Igbo
    firstNames: ['ADAEZE', 'CHINEDU', 'NGOZI', 'EMEKA', 'CHIOMA', 'OBINNA', 'IFEOMA', 'UCHENNA', 'CHIDINMA', 'NNAMDI'],
    surnames: ['OKONKWO', 'NWOSU', 'OKAFOR', 'EZE', 'IBEKWE', 'OKEKE', 'NWANKWO', 'ANYANWU', 'OBI', 'UZOMA'],
  },
  {
    // Hausa
    firstNames: ['AISHA', 'IBRAHIM', 'YUSUF', 'HAUWA', 'ZAINAB', 'ABDULLAHI', 'FATIMA', 'AMINU', 'HADIZA', 'BILKISU'],
    surnames: ['BELLO', 'ABUBAKAR', 'MUSA', 'DANJUMA', 'SANI', 'ALIYU', 'GARBA', 'LAWAL', 'UMAR', 'YAKUBU'],
  },
];

export interface SandboxBankDirectoryOptions {
  /** How long a name enquiry takes, in milliseconds (0 by default), to make timeouts and spinners testable. */
  delayMs?: number;
}

/**
 * Deterministic name enquiry for test keys: a hash of the bank code and account number picks a realistic holder
 * name ("ADAEZE OKONKWO"), so the same account always resolves to the same person.
 */
export class SandboxBankDirectory implements BankDirectory {
  private readonly delayMs: number;

  constructor(options: SandboxBankDirectoryOptions = {}) {
    this.delayMs = options.delayMs ?? 0;
    if (!Number.isFinite(this.delayMs) || this.delayMs < 0) throw new Error(`delayMs must be 0 or more, got ${this.delayMs}`);
  }

  async listBanks(): Promise<Bank[]> {
    return NIGERIAN_BANKS.map(({ code, name }) => ({ code, name }));
  }

  async resolveAccount(bankCode: string, accountNumber: string): Promise<{ accountName: string }> {
    if (this.delayMs > 0) await sleep(this.delayMs);
    if (accountNumber.slice(0, 9) === SANDBOX_MISSING_ACCOUNT_SERIAL) {
      const bankName = findBank(bankCode)?.name ?? `bank ${bankCode}`;
      throw invalidField('accountNumber', `no account with this number exists at ${bankName}`, 'ACCOUNT_NOT_FOUND');
    }
    return { accountName: sandboxAccountName(bankCode, accountNumber) };
  }
}

function sandboxAccountName(bankCode: string, accountNumber: string): string {
  const digest = createHash('sha256').update(`${bankCode}:${accountNumber}`).digest();
  const pool = NAME_POOLS[digest[0] % NAME_POOLS.length];
  const firstName = pool.firstNames[digest[1] % pool.firstNames.length];
  const surname = pool.surnames[digest[2] % pool.surnames.length];
  return `${firstName} ${surname}`;
}

/**
 * The bank directory of each environment: the sandbox's for test keys, the partners' for live keys. A live key with
 * no bank partner configured is refused (LIVE_MODE_DISABLED), never answered by the sandbox.
 */
export class BankDirectories extends ByEnvironment<BankDirectory> {
  constructor(test: BankDirectory, live: BankDirectory | undefined) {
    super('Live bank verification needs a bank partner', test, live);
  }
}
