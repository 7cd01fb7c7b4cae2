import { timingSafeEqual } from 'node:crypto';
import { fromBaseUnits, toBaseUnits } from '@ramp/money';
import { PartnerError, PartnerHttp, type PartnerHttpOptions } from './partner-http';

/** Flutterwave's API address (v3): FLUTTERWAVE_BASE_URL's default. */
export const FLUTTERWAVE_API = 'https://api.flutterwave.com/v3';

/** A transfer as Flutterwave answers it (`POST /transfers`, `GET /transfers?reference=`): the fields read. */
export interface FlutterwaveTransfer {
  id: number;
  reference: string;
  /** NEW, PENDING, SUCCESSFUL, FAILED. */
  status: string;
  amount: number;
  complete_message?: string | null;
}

interface Envelope<T> {
  status: 'success' | 'error';
  message: string;
  data: T;
}

export type FlutterwaveSettings = Omit<PartnerHttpOptions, 'provider'>;

/**
 * Flutterwave's v3 API, written from its public documentation (no published contract is available to the tests, so
 * the emulator follows the same reading): banks, account resolve, transfers by our reference, the NGN balance.
 * Amounts are Naira (not kobo), sent as JSON numbers only when the number prints back as the same decimal.
 */
export class FlutterwaveClient {
  readonly http: PartnerHttp;

  constructor(settings: FlutterwaveSettings) {
    this.http = new PartnerHttp({ provider: 'flutterwave', ...settings });
  }

  /** Nigeria's banks (`GET /banks/NG`): Flutterwave's code for each (the CBN code for commercial banks). */
  async listBanks(): Promise<{ code: string; name: string }[]> {
    const answer = await this.http.request<Envelope<{ id: number; code: string; name: string }[]>>({
      call: 'banks',
      method: 'GET',
      path: '/banks/NG',
      idempotent: true,
    });
    if (!Array.isArray(answer.data)) throw new PartnerError('flutterwave', 'banks', 'unavailable', 'answered without a list of banks');
    return answer.data.map((bank) => ({ code: String(bank.code), name: bank.name }));
  }

  /** Whose account this is (`POST /accounts/resolve`, a read): a refusal means the bank has no such account. */
  async resolveAccount(bankCode: string, accountNumber: string): Promise<{ accountName: string }> {
    const answer = await this.http.request<Envelope<{ account_number: string; account_name: string }>>({
      call: 'accounts_resolve',
      method: 'POST',
      path: '/accounts/resolve',
      body: { account_number: accountNumber, account_bank: bankCode },
      idempotent: true,
    });
    const name = answer.data?.account_name;
    if (typeof name !== 'string' || name.trim() === '')
      throw new PartnerError('flutterwave', 'accounts_resolve', 'unavailable', 'answered without an account name');
    return { accountName: name.trim() };
  }

  /** A transfer from the NGN balance under our reference (`POST /transfers`): Flutterwave refuses a reused reference. */
  async initiateTransfer(input: {
    bankCode: string;
    accountNumber: string;
    amount: string;
    reference: string;
    narration: string;
  }): Promise<FlutterwaveTransfer> {
    // Naira with at most 2 places, as the JSON number that prints back as exactly that decimal.
    const canonical = fromBaseUnits(toBaseUnits(input.amount, 2), 2);
    const amount = Number(canonical);
    if (!(amount > 0) || String(amount) !== canonical) throw new RangeError(`${input.amount} cannot be sent to Flutterwave as an exact number`);
    const answer = await this.http.request<Envelope<FlutterwaveTransfer>>({
      call: 'transfers_create',
      method: 'POST',
      path: '/transfers',
      body: {
        account_bank: input.bankCode,
        account_number: input.accountNumber,
        amount,
        narration: input.narration,
        currency: 'NGN',
        debit_currency: 'NGN',
        reference: input.reference,
      },
      idempotent: true,
    });
    return transferOf(answer.data, 'transfers_create');
  }

  /** The transfer with our reference (`GET /transfers?reference=`), or undefined when there is none. */
  async findTransfer(reference: string): Promise<FlutterwaveTransfer | undefined> {
    const answer = await this.http.request<Envelope<FlutterwaveTransfer[]>>({
      call: 'transfers_list',
      method: 'GET',
      path: '/transfers',
      query: { reference },
      idempotent: true,
    });
    if (!Array.isArray(answer.data)) throw new PartnerError('flutterwave', 'transfers_list', 'unavailable', 'answered without a list of transfers');
    const found = answer.data.find((transfer) => transfer.reference === reference);
    return found ? transferOf(found, 'transfers_list') : undefined;
  }

  /** The NGN balance available for transfers (`GET /balances/NGN`), a decimal string of Naira. */
  async balance(): Promise<string> {
    const answer = await this.http.request<Envelope<{ currency: string; available_balance: number }>>({
      call: 'balances',
      method: 'GET',
      path: '/balances/NGN',
      idempotent: true,
    });
    const available = answer.data?.available_balance;
    if (typeof available !== 'number' || !Number.isFinite(available))
      throw new PartnerError('flutterwave', 'balances', 'unavailable', 'answered without an NGN balance');
    return available.toFixed(2);
  }
}

function transferOf(data: FlutterwaveTransfer | undefined, call: string): FlutterwaveTransfer {
  if (!data || typeof data.reference !== 'string' || typeof data.status !== 'string')
    throw new PartnerError('flutterwave', call, 'unavailable', 'answered without a transfer');
  return data;
}

/** Flutterwave's transfer status as a payout state: only SUCCESSFUL paid, only FAILED moved nothing. */
export function flutterwavePayoutState(status: string): 'paid' | 'failed' | 'pending' {
  if (status === 'SUCCESSFUL') return 'paid';
  if (status === 'FAILED') return 'failed';
  return 'pending';
}

/** Flutterwave's events carry `verif-hash`: the secret hash set in its dashboard (FLUTTERWAVE_WEBHOOK_HASH), compared in constant time. */
export function isFlutterwaveHashValid(header: string | undefined, secretHash: string): boolean {
  if (!header || !secretHash) return false;
  const given = Buffer.from(header);
  const expected = Buffer.from(secretHash);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
