import { NIGERIAN_BANKS, type Bank } from '@ramp/banking';
import { AppError, invalidField } from '@ramp/contracts';
import type { BankDirectory } from '../bank-directory';
import { Rotation } from './circuit-breaker';
import { PartnerError } from './partner-http';

/** A bank as a partner lists it: its own code for the bank, and the NIBSS institution code when it gives one. */
export interface PartnerBank {
  name: string;
  code: string;
  nipCode?: string;
}

/** What a bank partner offers for name enquiry (Paystack's `GET /bank` and `GET /bank/resolve`, Flutterwave's...). */
export interface BankPartner {
  readonly name: string;
  listBanks(): Promise<PartnerBank[]>;
  /** Throws PartnerError `refused` when the bank has no such account. */
  resolveAccount(partnerBankCode: string, accountNumber: string): Promise<{ accountName: string }>;
}

/**
 * The platform's banks (NIGERIAN_BANKS: the codes whose NUBAN check digit it can verify) that a partner lists, each
 * with the partner's own code for it: matched by the CBN code (commercial banks, "058") or by the partner's NIP
 * institution code (microfinance and fintech banks, "090267"). A bank the partner does not list is not offered live.
 */
export function matchPartnerBanks(partnerBanks: readonly PartnerBank[]): Map<string, { bank: Bank; partnerCode: string }> {
  const byCode = new Map<string, string>();
  for (const listed of partnerBanks) {
    if (listed.nipCode && !byCode.has(listed.nipCode)) byCode.set(listed.nipCode, listed.code);
  }
  // A partner's own code equal to ours wins over a NIP code that happens to be equal.
  for (const listed of partnerBanks) byCode.set(listed.code, listed.code);
  const matched = new Map<string, { bank: Bank; partnerCode: string }>();
  for (const bank of NIGERIAN_BANKS) {
    const partnerCode = byCode.get(bank.code);
    if (partnerCode !== undefined) matched.set(bank.code, { bank, partnerCode });
  }
  return matched;
}

export interface PartnerBankDirectoryOptions {
  /** How long the partner's bank list is used before it is asked again (a day). */
  refreshMs?: number;
  now?: () => number;
}

/**
 * Name enquiry through one bank partner: the bank list fetched from it and kept for `refreshMs`, then refreshed beside
 * the answers (the stale one kept while the partner cannot be reached), and each account resolved by it under its own code for the bank. Callers check
 * the account number's format and check digit first, so the partner is asked only about accounts that can exist.
 */
export class PartnerBankDirectory implements BankDirectory {
  private readonly refreshMs: number;
  private readonly now: () => number;
  private cached: { at: number; banks: Map<string, { bank: Bank; partnerCode: string }> } | undefined;
  private loading: Promise<Map<string, { bank: Bank; partnerCode: string }>> | undefined;
  private failedAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly partner: BankPartner,
    options: PartnerBankDirectoryOptions = {},
  ) {
    this.refreshMs = options.refreshMs ?? 24 * 3600_000;
    this.now = options.now ?? Date.now;
  }

  async listBanks(): Promise<Bank[]> {
    return [...(await this.banks()).values()].map(({ bank }) => ({ code: bank.code, name: bank.name }));
  }

  /** The partner's own code for the bank the platform knows by `bankCode`, or undefined when the partner does not list it. */
  async partnerCodeOf(bankCode: string): Promise<string | undefined> {
    return (await this.banks()).get(bankCode)?.partnerCode;
  }

  async resolveAccount(bankCode: string, accountNumber: string): Promise<{ accountName: string }> {
    const listed = (await this.banks()).get(bankCode);
    if (!listed) throw invalidField('bankCode', `${bankCode} is not a bank this platform can pay or verify accounts at in live mode`);
    try {
      return await this.partner.resolveAccount(listed.partnerCode, accountNumber);
    } catch (error) {
      if (error instanceof PartnerError && error.kind === 'refused') {
        throw invalidField('accountNumber', `no account with this number exists at ${listed.bank.name}`, 'ACCOUNT_NOT_FOUND');
      }
      throw error;
    }
  }

  /**
   * The list: fetched on first use (a caller waits for it); once it is older than refreshMs, the one held is answered
   * at once and a new one fetched beside it, at most once a minute while the partner cannot be reached.
   */
  private async banks(): Promise<Map<string, { bank: Bank; partnerCode: string }>> {
    const cached = this.cached;
    if (cached) {
      if (this.now() - cached.at >= this.refreshMs && !this.loading && this.now() - this.failedAt >= 60_000) {
        this.loading = this.load()
          .catch((error: unknown) => {
            this.failedAt = this.now();
            throw error;
          })
          .finally(() => (this.loading = undefined));
        this.loading.catch(() => undefined);
      }
      return cached.banks;
    }
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(): Promise<Map<string, { bank: Bank; partnerCode: string }>> {
    const banks = matchPartnerBanks(await this.partner.listBanks());
    if (banks.size === 0) throw new PartnerError(this.partner.name, 'bank_list', 'unavailable', 'listed none of the banks the platform knows');
    this.cached = { at: this.now(), banks };
    return banks;
  }
}

/**
 * Live name enquiry across the configured partners, in order, each behind its circuit breaker (Rotation): an
 * unavailable partner's question goes to the next; when none answers, SERVICE_UNAVAILABLE (retry later), never a
 * made-up name.
 */
export class RotatingBankDirectory implements BankDirectory {
  constructor(private readonly rotation: Rotation<BankDirectory>) {}

  listBanks(): Promise<Bank[]> {
    return this.unavailableAsAppError(() => this.rotation.first((directory) => directory.listBanks()));
  }

  resolveAccount(bankCode: string, accountNumber: string): Promise<{ accountName: string }> {
    return this.unavailableAsAppError(() => this.rotation.first((directory) => directory.resolveAccount(bankCode, accountNumber)));
  }

  private async unavailableAsAppError<R>(call: () => Promise<R>): Promise<R> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof PartnerError)
        throw new AppError('SERVICE_UNAVAILABLE', 'The bank directory is unavailable (the bank partners did not answer): retry later');
      throw error;
    }
  }
}
