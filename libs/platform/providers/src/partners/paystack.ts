import { createHmac, timingSafeEqual } from 'node:crypto';
import { PartnerError, PartnerHttp, type PartnerHttpOptions } from './partner-http';

/** Paystack's API address: PAYSTACK_BASE_URL's default. */
export const PAYSTACK_API = 'https://api.paystack.co';

/** A bank as Paystack lists it (`GET /bank`): the fields the platform reads. */
export interface PaystackBank {
  name: string;
  code: string;
  active: boolean;
  is_deleted: boolean | null;
  /** With `include_nip_sort_code=true`: the bank's 6-digit NIBSS institution code. */
  nip_sort_code?: string;
}

/** A transfer as Paystack answers it (`POST /transfer`, `GET /transfer/verify/{reference}`): the fields read. */
export interface PaystackTransfer {
  reference: string;
  status: string;
  amount: number;
  transfer_code: string;
  gateway_response?: string | null;
}

interface Envelope<T> {
  status: boolean;
  message: string;
  data: T;
  meta?: { next?: string | null };
}

/** PartnerHttp's options but the provider's name: the API address, the secret key, the timeout, the observer. */
export type PaystackSettings = Omit<PartnerHttpOptions, 'provider'>;

/**
 * Paystack's API (../shared/partners/paystack.yaml is its contract, checked by the tests through Prism): the calls the
 * platform makes, each with PartnerHttp's timeout, retries where Paystack treats a repeat as harmless, and metrics.
 */
export class PaystackClient implements PaystackPayoutCalls {
  readonly http: PartnerHttp;

  constructor(settings: PaystackSettings) {
    this.http = new PartnerHttp({ provider: 'paystack', ...settings });
  }

  /** Nigeria's banks with their NIP codes, every page (`GET /bank?country=nigeria`, cursor pages of 100). */
  async listBanks(): Promise<PaystackBank[]> {
    const banks: PaystackBank[] = [];
    let next: string | undefined;
    for (let page = 0; page < 50; page++) {
      const answer = await this.http.request<Envelope<PaystackBank[]>>({
        call: 'bank_list',
        method: 'GET',
        path: '/bank',
        query: { country: 'nigeria', currency: 'NGN', use_cursor: true, perPage: 100, include_nip_sort_code: true, next },
        idempotent: true,
      });
      if (!Array.isArray(answer.data)) throw new PartnerError('paystack', 'bank_list', 'unavailable', 'answered without a list of banks');
      banks.push(...answer.data);
      next = answer.meta?.next ?? undefined;
      if (!next) return banks;
    }
    throw new PartnerError('paystack', 'bank_list', 'unavailable', 'the bank list did not end within 50 pages');
  }

  /** Whose account this is (`GET /bank/resolve`): a refusal (422) means the bank has no such account. */
  async resolveAccount(paystackBankCode: string, accountNumber: string): Promise<{ accountName: string }> {
    const answer = await this.http.request<Envelope<{ account_number: string; account_name: string }>>({
      call: 'bank_resolve',
      method: 'GET',
      path: '/bank/resolve',
      query: { account_number: accountNumber, bank_code: paystackBankCode },
      idempotent: true,
    });
    const name = answer.data?.account_name;
    if (typeof name !== 'string' || name.trim() === '') throw new PartnerError('paystack', 'bank_resolve', 'unavailable', 'answered without an account name');
    return { accountName: name.trim() };
  }

  /**
   * A `nuban` transfer recipient (`POST /transferrecipient`): Paystack answers the existing recipient for an account
   * it has, so asking again is harmless.
   */
  async createRecipient(input: { name: string; accountNumber: string; paystackBankCode: string }): Promise<{ recipientCode: string }> {
    const answer = await this.http.request<Envelope<{ recipient_code: string }>>({
      call: 'transferrecipient_create',
      method: 'POST',
      path: '/transferrecipient',
      body: { type: 'nuban', name: input.name, account_number: input.accountNumber, bank_code: input.paystackBankCode, currency: 'NGN' },
      idempotent: true,
    });
    const code = answer.data?.recipient_code;
    if (typeof code !== 'string' || code === '')
      throw new PartnerError('paystack', 'transferrecipient_create', 'unavailable', 'answered without a recipient code');
    return { recipientCode: code };
  }

  /**
   * A transfer from the balance (`POST /transfer`), amount in kobo, under our reference: Paystack refuses a second
   * transfer with the same reference ("Duplicate Transfer Reference"), so a repeat after a lost answer pays nothing twice.
   */
  async initiateTransfer(input: { amountKobo: bigint; recipientCode: string; reference: string; reason: string }): Promise<PaystackTransfer> {
    if (input.amountKobo <= 0n || input.amountKobo > BigInt(Number.MAX_SAFE_INTEGER))
      throw new RangeError(`a transfer of ${input.amountKobo} kobo cannot be sent`);
    const answer = await this.http.request<Envelope<PaystackTransfer>>({
      call: 'transfer_initiate',
      method: 'POST',
      path: '/transfer',
      body: {
        source: 'balance',
        amount: Number(input.amountKobo),
        recipient: input.recipientCode,
        reference: input.reference,
        reason: input.reason,
        currency: 'NGN',
      },
      idempotent: true,
    });
    return transferOf(answer.data, 'transfer_initiate');
  }

  /** The transfer with our reference (`GET /transfer/verify/{reference}`), or undefined when Paystack has none (404). */
  async verifyTransfer(reference: string): Promise<PaystackTransfer | undefined> {
    try {
      const answer = await this.http.request<Envelope<PaystackTransfer>>({
        call: 'transfer_verify',
        method: 'GET',
        path: `/transfer/verify/${encodeURIComponent(reference)}`,
        idempotent: true,
      });
      return transferOf(answer.data, 'transfer_verify');
    } catch (error) {
      if (error instanceof PartnerError && error.kind === 'refused' && error.status === 404) return undefined;
      throw error;
    }
  }

  /**
   * A charge as Paystack keeps it now (`GET /transaction/verify/{reference}`): its status (`success`, or `reversed` once
   * refunded in full) and amount in kobo; undefined when Paystack does not know the reference.
   */
  async verifyCharge(reference: string): Promise<{ status: string; amountKobo: bigint } | undefined> {
    try {
      const answer = await this.http.request<Envelope<{ status: string; amount: number; reference: string }>>({
        call: 'transaction_verify',
        method: 'GET',
        path: `/transaction/verify/${encodeURIComponent(reference)}`,
        idempotent: true,
      });
      const charge = answer.data;
      if (!charge || typeof charge.status !== 'string' || !Number.isSafeInteger(charge.amount))
        throw new PartnerError('paystack', 'transaction_verify', 'unavailable', 'answered without a transaction');
      return { status: charge.status, amountKobo: BigInt(charge.amount) };
    } catch (error) {
      if (error instanceof PartnerError && error.kind === 'refused' && error.status === 404) return undefined;
      throw error;
    }
  }

  /** The NGN balance transfers are paid from (`GET /balance`), in kobo. */
  async balanceKobo(): Promise<bigint> {
    const answer = await this.http.request<Envelope<{ currency: string; balance: number }[]>>({
      call: 'balance',
      method: 'GET',
      path: '/balance',
      idempotent: true,
    });
    const ngn = Array.isArray(answer.data) ? answer.data.find((entry) => entry.currency === 'NGN') : undefined;
    if (!ngn || !Number.isSafeInteger(ngn.balance)) throw new PartnerError('paystack', 'balance', 'unavailable', 'answered without an NGN balance');
    return BigInt(ngn.balance);
  }

  /** A customer (`POST /customer`): Paystack answers the existing one for an email it has, so asking again is harmless. */
  async createCustomer(input: { email: string; firstName: string; lastName: string; phone: string }): Promise<{ customerCode: string }> {
    const answer = await this.http.request<Envelope<{ customer_code: string }>>({
      call: 'customer_create',
      method: 'POST',
      path: '/customer',
      body: { email: input.email, first_name: input.firstName, last_name: input.lastName, phone: input.phone },
      idempotent: true,
    });
    const code = answer.data?.customer_code;
    if (typeof code !== 'string' || code === '') throw new PartnerError('paystack', 'customer_create', 'unavailable', 'answered without a customer code');
    return { customerCode: code };
  }

  /**
   * The customer's dedicated virtual account (`POST /dedicated_account`), at `preferredBank` (Paystack's slug, such as
   * `wema-bank`): one per customer, which Paystack answers again for the same customer.
   */
  async createDedicatedAccount(input: { customerCode: string; preferredBank: string }): Promise<PaystackDedicatedAccount> {
    const answer = await this.http.request<Envelope<PaystackDedicatedAccount>>({
      call: 'dedicated_account_create',
      method: 'POST',
      path: '/dedicated_account',
      body: { customer: input.customerCode, preferred_bank: input.preferredBank },
      idempotent: true,
    });
    const account = answer.data;
    if (!account || !/^\d{10}$/.test(account.account_number ?? '') || !account.bank?.name) {
      throw new PartnerError('paystack', 'dedicated_account_create', 'unavailable', 'answered without a 10-digit account');
    }
    return account;
  }

  /**
   * A refund of a charge (`POST /refund`, amount in kobo): not repeated after a lost answer (Paystack keys a refund by
   * nothing of ours), so a fault is the caller's to look into; a second full refund of one charge is refused anyway.
   */
  async refund(input: { chargeReference: string; amountKobo: bigint; note: string }): Promise<PaystackRefund> {
    const answer = await this.http.request<Envelope<PaystackRefund>>({
      call: 'refund_create',
      method: 'POST',
      path: '/refund',
      body: { transaction: input.chargeReference, amount: Number(input.amountKobo), currency: 'NGN', merchant_note: input.note },
      idempotent: false,
    });
    if (!answer.data || typeof answer.data.status !== 'string') throw new PartnerError('paystack', 'refund_create', 'unavailable', 'answered without a refund');
    return answer.data;
  }
}

function transferOf(data: PaystackTransfer | undefined, call: string): PaystackTransfer {
  if (!data || typeof data.reference !== 'string' || typeof data.status !== 'string')
    throw new PartnerError('paystack', call, 'unavailable', 'answered without a transfer');
  return data;
}

/** A dedicated virtual account as Paystack answers it (`POST /dedicated_account`): the fields read. */
export interface PaystackDedicatedAccount {
  account_number: string;
  account_name: string;
  bank: { name: string; slug: string };
  customer: { customer_code: string };
}

/** A refund as Paystack answers it (`POST /refund`). */
export interface PaystackRefund {
  id: number;
  status: string;
  amount: number;
}

export interface PaystackPayoutCalls {
  createRecipient(input: { name: string; accountNumber: string; paystackBankCode: string }): Promise<{ recipientCode: string }>;
  initiateTransfer(input: { amountKobo: bigint; recipientCode: string; reference: string; reason: string }): Promise<PaystackTransfer>;
  verifyTransfer(reference: string): Promise<PaystackTransfer | undefined>;
  balanceKobo(): Promise<bigint>;
}

/** `x-paystack-signature` of a body: the hex HMAC-SHA512 of the raw bytes, keyed with the secret key. */
export function paystackSignature(rawBody: Buffer | string, secretKey: string): string {
  return createHmac('sha512', secretKey).update(rawBody).digest('hex');
}

/** Whether `signature` is the body's, compared in constant time; a missing or malformed one is not. */
export function isPaystackSignatureValid(rawBody: Buffer | string, signature: string | undefined, secretKey: string): boolean {
  if (!signature || !secretKey || !/^[0-9a-f]{128}$/i.test(signature)) return false;
  const expected = Buffer.from(paystackSignature(rawBody, secretKey), 'hex');
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}
