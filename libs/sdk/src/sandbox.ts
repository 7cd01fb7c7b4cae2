/** What the sandbox does with an account: pay it, not know it, or accept it and then have its bank refuse the payout. */
export type SandboxAccountBehaviour = 'succeeds' | 'account_not_found' | 'payout_rejected';

/** A bank account the sandbox (test keys) answers for in a known way. */
export interface SandboxBankAccount {
  /** The `bankCode` to send, as listed by `ramp.banks.list()`. */
  readonly bankCode: string;
  readonly bankName: string;
  /** A 10-digit NUBAN with a valid check digit for this bank. */
  readonly accountNumber: string;
  /** The holder's name the sandbox resolves the account to; absent when there is no such account. */
  readonly accountName?: string;
  /**
   * `succeeds`: verifies, quotes and is paid out. `account_not_found` (first nine digits `999999999`): bank
   * verification and off-ramp quotes answer INVALID_REQUEST on `accountNumber`. `payout_rejected` (first nine digits
   * `888888888`): verifies and quotes, but the bank rejects the payout, so the off-ramp fails and the tokens go back.
   */
  readonly behaviour: SandboxAccountBehaviour;
}

/**
 * Bank accounts at real Nigerian banks for trying each outcome of an off-ramp or a bank verification with a test
 * key, e.g. `SANDBOX_BANK_ACCOUNTS.find((account) => account.behaviour === 'payout_rejected')`. With a live key they
 * are ordinary account numbers at real banks: never use them there.
 */
export const SANDBOX_BANK_ACCOUNTS: readonly SandboxBankAccount[] = Object.freeze(
  (
    [
      { bankCode: '058', bankName: 'Guaranty Trust Bank', accountNumber: '0123456785', accountName: 'NGOZI OKONKWO', behaviour: 'succeeds' },
      { bankCode: '044', bankName: 'Access Bank', accountNumber: '0691342528', accountName: 'IFEOMA OKAFOR', behaviour: 'succeeds' },
      { bankCode: '057', bankName: 'Zenith Bank', accountNumber: '2284019376', accountName: 'OBINNA IBEKWE', behaviour: 'succeeds' },
      { bankCode: '100004', bankName: 'OPay', accountNumber: '8103572649', accountName: 'OLUMIDE OYELARAN', behaviour: 'succeeds' },
      { bankCode: '011', bankName: 'First Bank of Nigeria', accountNumber: '9999999999', behaviour: 'account_not_found' },
      { bankCode: '033', bankName: 'United Bank for Africa', accountNumber: '8888888888', accountName: 'FUNMILAYO OYELARAN', behaviour: 'payout_rejected' },
    ] satisfies SandboxBankAccount[]
  ).map((account) => Object.freeze(account)),
);
