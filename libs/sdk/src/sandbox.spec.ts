import { readFileSync } from 'fs';
import { resolve } from 'path';
import { findBank, isValidNuban } from '@ramp/banking';
import { SandboxBankDirectory, SandboxOfframpRails } from '@ramp/providers';
import { SANDBOX_BANK_ACCOUNTS, type SandboxAccountBehaviour } from './sandbox';

// The SDK may not import the platform's libraries, so its sandbox accounts are literals: this keeps them true.
describe('SANDBOX_BANK_ACCOUNTS - behave in the sandbox exactly as the SDK says', () => {
  const directory = new SandboxBankDirectory();
  const rails = new SandboxOfframpRails();

  it.each(SANDBOX_BANK_ACCOUNTS.map((account) => [`${account.bankName} ${account.accountNumber}`, account] as const))(
    '%s is a valid NUBAN at a bank of that code and name',
    (_, account) => {
      expect(findBank(account.bankCode)?.name).toBe(account.bankName);
      expect(isValidNuban(account.bankCode, account.accountNumber)).toBe(true);
    },
  );

  it.each(SANDBOX_BANK_ACCOUNTS.map((account) => [`${account.bankName} ${account.accountNumber}`, account.behaviour, account] as const))(
    '%s: %s',
    async (_, behaviour, account) => {
      const verification = directory.resolveAccount(account.bankCode, account.accountNumber);
      if (behaviour === 'account_not_found') {
        await expect(verification).rejects.toMatchObject({ code: 'INVALID_REQUEST', field: 'accountNumber' });
        expect(account.accountName).toBeUndefined();
        return;
      }
      await expect(verification).resolves.toEqual({ accountName: account.accountName });
      const payout = await rails.payout({
        transactionId: 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
        bankCode: account.bankCode,
        accountNumber: account.accountNumber,
        amount: '1000',
      });
      expect(payout.ok).toBe(behaviour === 'succeeds');
    },
  );

  it('cover every behaviour, at different banks, with a 6-digit institution code among them', () => {
    const behaviours: SandboxAccountBehaviour[] = ['succeeds', 'account_not_found', 'payout_rejected'];
    expect(new Set(SANDBOX_BANK_ACCOUNTS.map((account) => account.behaviour))).toEqual(new Set(behaviours));
    expect(new Set(SANDBOX_BANK_ACCOUNTS.map((account) => account.bankCode)).size).toBe(SANDBOX_BANK_ACCOUNTS.length);
    expect(SANDBOX_BANK_ACCOUNTS.some((account) => account.bankCode.length === 6)).toBe(true);
  });

  it('are the table of docs/api/sandbox.md, row for row', () => {
    const page = readFileSync(resolve(__dirname, '../../../docs/api/sandbox.md'), 'utf8');
    const rows = page
      .split('\n')
      .filter((line) => /^\| [^|]+ \| `\d+` \| `\d{10}` \| `[a-z_]+`/.test(line))
      .map((line) => {
        const [bankName, bankCode, accountNumber, behaviour] = line
          .split('|')
          .slice(1, 5)
          .map((cell) => cell.trim());
        return {
          bankName,
          bankCode: bankCode!.replace(/`/g, ''),
          accountNumber: accountNumber!.replace(/`/g, ''),
          behaviour: /^`([a-z_]+)`/.exec(behaviour!)![1],
          text: behaviour,
        };
      });
    expect(rows).toEqual(
      SANDBOX_BANK_ACCOUNTS.map(({ bankName, bankCode, accountNumber, accountName, behaviour }) => ({
        bankName,
        bankCode,
        accountNumber,
        behaviour,
        text: accountName === undefined ? expect.any(String) : expect.stringContaining(accountName),
      })),
    );
  });
});
