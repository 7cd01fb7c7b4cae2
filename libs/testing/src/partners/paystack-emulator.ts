import { createHmac } from 'crypto';
import { NIGERIAN_BANKS } from '@ramp/banking';
import { PartnerEmulator } from './partner-emulator';

/** A transfer the emulator holds, by our reference. */
export interface EmulatedTransfer {
  id: number;
  reference: string;
  amount: number;
  recipient: EmulatedRecipient;
  reason: string;
  status: 'pending' | 'success' | 'failed' | 'reversed' | 'otp';
  transfer_code: string;
  createdAt: string;
  updatedAt: string;
}

interface EmulatedRecipient {
  id: number;
  recipient_code: string;
  name: string;
  account_number: string;
  bank_code: string;
  bank_name: string;
  createdAt: string;
}

interface EmulatedBank {
  id: number;
  name: string;
  slug: string;
  code: string;
  nip_sort_code: string;
}

/**
 * Paystack as the tests need it: a stateful server answering the calls the platform makes, in the shapes of
 * Paystack's published contract (partners/paystack.yaml; run it behind PrismProxy to have both sides checked). It
 * knows a secret key, the Nigerian banks (commercial banks under their CBN code, the others under a Paystack code of
 * their own with their NIBSS code as `nip_sort_code`, as Paystack lists them), the accounts a test opens at them, and
 * can be taken down for a number of calls.
 *
 * Not Paystack: no other endpoint, no pagination beyond the bank list's cursor, and names are what the test gave.
 */
export class PaystackEmulator extends PartnerEmulator {
  private readonly banks: EmulatedBank[];
  private readonly accounts = new Map<string, string>();
  /** Every transfer by our reference: what a test asserts (exactly one per payout). */
  readonly transfers = new Map<string, EmulatedTransfer>();
  private readonly recipients = new Map<string, EmulatedRecipient>();
  /** Customers by email, each with its dedicated account once one is asked for. */
  readonly customers = new Map<
    string,
    { id: number; customer_code: string; email: string; first_name: string; last_name: string; phone: string; account?: string }
  >();
  /** Charges (payments into dedicated accounts) by reference, with what was refunded of each, in kobo. */
  readonly charges = new Map<string, { reference: string; amount: number; accountNumber: string; customerCode: string; refunded: number }>();
  /** Answer the next refund as `failed` (Paystack queued it and it failed at once): nothing is given back. */
  failNextRefund = false;
  /** Refuse a transfer the balance cannot cover before looking at its reference (Paystack's order is not documented). */
  checksBalanceFirst = false;
  /** The NGN balance transfers are paid from, in kobo (a transfer takes it; a failed or reversed one gives it back). */
  balanceKobo = 100_000_000_00;
  /** References whose transfer the verify call does not find (yet), as a partner whose look-up lags its writes. */
  readonly hiddenFromLookUp = new Set<string>();

  constructor(secretKey: string, options: { unlisted?: readonly string[] } = {}) {
    super(secretKey);
    const unlisted = new Set(options.unlisted ?? []);
    this.banks = NIGERIAN_BANKS.filter((bank) => !unlisted.has(bank.code)).map((bank, index) => ({
      id: index + 1,
      name: bank.name,
      slug: bank.name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      // Paystack's own code: the CBN code for a commercial bank, a 5-digit code of its own for the others.
      code: bank.code.length === 3 ? bank.code : String(50100 + index),
      nip_sort_code: bank.code.length === 3 ? `000${bank.code}`.slice(-6) : bank.code,
    }));
    // A bank the platform does not know (it has no NUBAN rule for it): listed by Paystack, never offered.
    this.banks.push({ id: 999, name: 'Emulated Unknown Bank', slug: 'emulated-unknown-bank', code: '999001', nip_sort_code: '999001' });
  }

  /** Paystack's code for the bank the platform knows by `code`. */
  paystackCodeOf(code: string): string {
    const bank = this.banks.find((listed) => listed.nip_sort_code === code || listed.code === code);
    if (!bank) throw new Error(`the emulator does not list bank ${code}`);
    return bank.code;
  }

  /** An account at a bank (the platform's code for it), held by `name`: what name enquiry answers. */
  openAccount(bankCode: string, accountNumber: string, name: string): void {
    this.accounts.set(`${this.paystackCodeOf(bankCode)}:${accountNumber}`, name);
  }

  /**
   * A payer's bank transfer into a dedicated account: a charge of `amountKobo`, and `charge.success` (channel
   * `dedicated_nuban`) sent to `webhookUrl` as Paystack sends it. Answers the charge's reference with the event's answer.
   */
  async payInto(accountNumber: string, amountKobo: number, webhookUrl: string): Promise<{ reference: string; answer: { status: number; body: any } }> {
    const customer = [...this.customers.values()].find((known) => known.account === accountNumber);
    if (!customer) throw new Error(`the emulator has no dedicated account ${accountNumber}`);
    const reference = `T${(700_000_000 + this.charges.size).toString()}`;
    this.charges.set(reference, { reference, amount: amountKobo, accountNumber, customerCode: customer.customer_code, refunded: 0 });
    const paidAt = new Date().toISOString();
    const answer = await this.sendEvent(webhookUrl, 'charge.success', {
      id: 4_099_000 + this.charges.size,
      domain: 'live',
      status: 'success',
      reference,
      amount: amountKobo,
      gateway_response: 'Approved',
      paid_at: paidAt,
      channel: 'dedicated_nuban',
      currency: 'NGN',
      customer: {
        id: customer.id,
        email: customer.email,
        customer_code: customer.customer_code,
        first_name: customer.first_name,
        last_name: customer.last_name,
        phone: customer.phone,
      },
      authorization: { channel: 'dedicated_nuban', bank: 'Wema Bank', receiver_bank_account_number: accountNumber, receiver_bank: 'Wema Bank' },
    });
    return { reference, answer };
  }

  /**
   * A refund Paystack had accepted fails at the bank: nothing of the charge stays given back, and `refund.failed` is
   * sent to `webhookUrl` as Paystack sends it.
   */
  async failRefund(chargeReference: string, webhookUrl: string): Promise<{ status: number; body: any }> {
    const charge = this.charges.get(chargeReference);
    if (!charge) throw new Error(`the emulator has no charge ${chargeReference}`);
    const amount = charge.refunded;
    charge.refunded = 0;
    return this.sendEvent(webhookUrl, 'refund.failed', {
      id: 77_000 + this.charges.size,
      status: 'failed',
      transaction_reference: chargeReference,
      amount,
      currency: 'NGN',
    });
  }

  /** A charge as `GET /transaction/verify/{reference}` answers it: `reversed` once refunded in full, as Paystack shows it. */
  private chargeView(charge: { reference: string; amount: number; accountNumber: string; customerCode: string; refunded: number }, now: string) {
    const customer = [...this.customers.values()].find((known) => known.customer_code === charge.customerCode)!;
    return {
      id: Number(charge.reference.slice(1)),
      domain: 'live',
      status: charge.refunded >= charge.amount ? 'reversed' : 'success',
      reference: charge.reference,
      receipt_number: null,
      amount: charge.amount,
      message: null,
      gateway_response: 'Approved',
      paid_at: now,
      created_at: now,
      channel: 'dedicated_nuban',
      currency: 'NGN',
      ip_address: '',
      metadata: null,
      log: null,
      fees: 0,
      fees_split: null,
      authorization: { channel: 'dedicated_nuban', bank: 'Wema Bank', receiver_bank_account_number: charge.accountNumber, receiver_bank: 'Wema Bank' },
      customer: customerView(customer, null),
      plan: null,
      split: {},
      order_id: null,
      paidAt: now,
      createdAt: now,
      requested_amount: charge.amount,
      pos_transaction_data: null,
      source: null,
      fees_breakdown: null,
      connect: null,
      transaction_date: now,
      plan_object: {},
      subaccount: {},
    };
  }

  protected signatureOf(body: string): [string, string] {
    // Paystack's documented signature: the hex HMAC-SHA512 of the body, keyed with the secret key.
    return ['x-paystack-signature', createHmac('sha512', this.secretKey).update(body).digest('hex')];
  }

  /** Ends a pending transfer as the bank did, and sends its event (`transfer.<status>`) to `webhookUrl` when given. */
  async settle(reference: string, status: 'success' | 'failed' | 'reversed', webhookUrl?: string): Promise<{ status: number; body: any } | undefined> {
    const transfer = this.transfers.get(reference);
    if (!transfer) throw new Error(`the emulator has no transfer ${reference}`);
    if (status !== 'success') this.balanceKobo += transfer.amount;
    transfer.status = status;
    transfer.updatedAt = new Date().toISOString();
    return webhookUrl ? this.sendEvent(webhookUrl, `transfer.${status}`, this.transferView(transfer)) : undefined;
  }

  protected route(method: string, url: URL, body: unknown): [number, unknown] {
    const route = `${method} ${url.pathname}`;
    const now = new Date().toISOString();
    if (route === 'POST /transferrecipient') {
      const input = body as { name: string; account_number: string; bank_code: string };
      const bank = this.banks.find((listed) => listed.code === input.bank_code);
      if (!bank) return [400, { status: false, message: 'Invalid bank code', type: 'validation_error' }];
      const key = `${input.bank_code}:${input.account_number}`;
      let recipient = this.recipients.get(key);
      if (!recipient) {
        recipient = {
          id: this.recipients.size + 1,
          recipient_code: `RCP_${(this.recipients.size + 1).toString(36).padStart(10, '0')}`,
          name: input.name,
          account_number: input.account_number,
          bank_code: input.bank_code,
          bank_name: bank.name,
          createdAt: now,
        };
        this.recipients.set(key, recipient);
      }
      return [201, { status: true, message: 'Transfer recipient created successfully', data: this.recipientView(recipient) }];
    }
    if (route === 'POST /transfer') {
      const input = body as { amount: number; recipient: string; reference: string; reason?: string };
      const poor: [number, unknown] = [400, { status: false, message: 'Your balance is not enough to fulfil this request', type: 'validation_error' }];
      if (this.checksBalanceFirst && input.amount > this.balanceKobo) return poor;
      if (this.transfers.has(input.reference)) return [400, { status: false, message: 'Duplicate Transfer Reference', type: 'validation_error' }];
      const recipient = [...this.recipients.values()].find((known) => known.recipient_code === input.recipient);
      if (!recipient) return [400, { status: false, message: 'Recipient specified is invalid', type: 'validation_error' }];
      if (input.amount > this.balanceKobo)
        return [400, { status: false, message: 'Your balance is not enough to fulfil this request', type: 'validation_error' }];
      this.balanceKobo -= input.amount;
      const transfer: EmulatedTransfer = {
        id: this.transfers.size + 1,
        reference: input.reference,
        amount: input.amount,
        recipient,
        reason: input.reason ?? '',
        status: 'pending',
        transfer_code: `TRF_${(this.transfers.size + 1).toString(36).padStart(10, '0')}`,
        createdAt: now,
        updatedAt: now,
      };
      this.transfers.set(input.reference, transfer);
      const { recipient: _recipient, ...created } = this.transferView(transfer);
      return [
        200,
        {
          status: true,
          message: 'Transfer has been queued',
          data: { ...created, recipient: recipient.id, transfersessionid: [], transfertrials: [], request: transfer.id },
        },
      ];
    }
    if (method === 'GET' && url.pathname.startsWith('/transfer/verify/')) {
      const reference = decodeURIComponent(url.pathname.slice('/transfer/verify/'.length));
      const transfer = this.hiddenFromLookUp.has(reference) ? undefined : this.transfers.get(reference);
      if (!transfer) return [404, { status: false, message: 'Transfer not found', type: 'validation_error' }];
      return [200, { status: true, message: 'Transfer retrieved', data: this.transferView(transfer) }];
    }
    if (method === 'GET' && url.pathname.startsWith('/transaction/verify/')) {
      const reference = decodeURIComponent(url.pathname.slice('/transaction/verify/'.length));
      const charge = this.charges.get(reference);
      if (!charge) return [404, { status: false, message: 'Transaction reference not found', type: 'validation_error' }];
      return [200, { status: true, message: 'Verification successful', data: this.chargeView(charge, now) }];
    }
    if (route === 'POST /customer') {
      const input = body as { email: string; first_name?: string; last_name?: string; phone?: string };
      let customer = this.customers.get(input.email);
      if (!customer) {
        const id = this.customers.size + 1;
        customer = {
          id,
          customer_code: `CUS_${id.toString(36).padStart(12, '0')}`,
          email: input.email,
          first_name: input.first_name ?? '',
          last_name: input.last_name ?? '',
          phone: input.phone ?? '',
        };
        this.customers.set(input.email, customer);
      }
      const { account: _account, ...view } = customer;
      return [
        200,
        {
          status: true,
          message: 'Customer created',
          data: {
            ...view,
            transactions: [],
            subscriptions: [],
            authorizations: [],
            integration: 1,
            domain: 'live',
            metadata: {},
            risk_action: 'default',
            createdAt: now,
            updatedAt: now,
            identified: false,
            identifications: null,
          },
        },
      ];
    }
    if (route === 'POST /dedicated_account') {
      const input = body as { customer: string; preferred_bank?: string };
      const customer = [...this.customers.values()].find((known) => known.customer_code === input.customer);
      if (!customer) return [400, { status: false, message: 'Customer not found', type: 'validation_error' }];
      if (!customer.first_name || !customer.last_name || !customer.phone) {
        return [400, { status: false, message: 'Customer first name, last name and phone number are required', type: 'validation_error' }];
      }
      // Wema Bank (035) numbers, one per customer, the same when asked again.
      customer.account ??= `${9_100_000_000 + customer.id}`;
      return [
        200,
        {
          status: true,
          message: 'NUBAN successfully created',
          data: {
            bank: { name: 'Wema Bank', id: 20, slug: input.preferred_bank ?? 'wema-bank' },
            account_name: `RAMP/${customer.first_name.toUpperCase()} ${customer.last_name.toUpperCase()}`,
            account_number: customer.account,
            assigned: true,
            currency: 'NGN',
            metadata: null,
            active: true,
            id: customer.id,
            created_at: now,
            updated_at: now,
            assignment: {
              integration: 1,
              assignee_id: customer.id,
              assignee_type: 'Customer',
              expired: false,
              account_type: 'PAY-WITH-TRANSFER-RECURRING',
              assigned_at: now,
              expired_at: null,
            },
            customer: customerView(customer, {}),
          },
        },
      ];
    }
    if (route === 'POST /refund') {
      const input = body as { transaction: string; amount?: number };
      const charge = this.charges.get(input.transaction);
      if (!charge) return [400, { status: false, message: 'Transaction reference not found', type: 'validation_error' }];
      const amount = input.amount ?? charge.amount - charge.refunded;
      if (amount <= 0 || charge.refunded + amount > charge.amount)
        return [400, { status: false, message: 'Refund amount cannot be greater than transaction amount', type: 'validation_error' }];
      const failed = this.failNextRefund;
      this.failNextRefund = false;
      if (!failed) charge.refunded += amount;
      return [
        200,
        {
          status: true,
          message: 'Refund has been queued for processing',
          data: {
            transaction: {
              id: 1,
              domain: 'live',
              reference: charge.reference,
              amount: charge.amount,
              paid_at: now,
              channel: 'dedicated_nuban',
              currency: 'NGN',
              authorization: { exp_month: null, exp_year: null, account_name: null },
              customer: { international_format_phone: null },
              plan: {},
              subaccount: { currency: null },
              split: {},
              order_id: null,
              paidAt: now,
              pos_transaction_data: null,
              source: null,
              fees_breakdown: null,
            },
            integration: 1,
            deducted_amount: 0,
            channel: null,
            merchant_note: '',
            customer_note: '',
            status: failed ? 'failed' : 'pending',
            refunded_by: 'platform',
            expected_at: now,
            currency: 'NGN',
            domain: 'live',
            amount,
            fully_deducted: false,
            id: this.charges.size,
            createdAt: now,
            updatedAt: now,
          },
        },
      ];
    }
    if (route === 'GET /balance') return [200, { status: true, message: 'Balances retrieved', data: [{ currency: 'NGN', balance: this.balanceKobo }] }];
    if (route === 'GET /bank') return [200, this.listBanks(url.searchParams)];
    if (route === 'GET /bank/resolve') {
      const key = `${url.searchParams.get('bank_code')}:${url.searchParams.get('account_number')}`;
      const name = this.accounts.get(key);
      if (!name) return [422, { status: false, message: 'Could not resolve account name. Check parameters or try again.', type: 'validation_error' }];
      return [
        200,
        {
          status: true,
          message: 'Account number resolved',
          data: {
            account_number: url.searchParams.get('account_number'),
            account_name: name,
            bank_id: this.banks.find((bank) => bank.code === key.split(':')[0])?.id ?? 0,
          },
        },
      ];
    }
    return [404, { status: false, message: `the emulator has no ${route}`, type: 'api_error' }];
  }

  private recipientView(recipient: EmulatedRecipient) {
    return {
      active: true,
      createdAt: recipient.createdAt,
      currency: 'NGN',
      description: '',
      domain: 'live',
      email: '',
      id: recipient.id,
      integration: 1,
      metadata: null,
      name: recipient.name,
      recipient_code: recipient.recipient_code,
      type: 'nuban',
      updatedAt: recipient.createdAt,
      is_deleted: false,
      isDeleted: false,
      details: {
        authorization_code: null,
        account_number: recipient.account_number,
        account_name: recipient.name,
        bank_code: recipient.bank_code,
        bank_name: recipient.bank_name,
      },
    };
  }

  /** A transfer as verify and the events show it. */
  transferView(transfer: EmulatedTransfer) {
    const { isDeleted: _isDeleted, ...recipient } = this.recipientView(transfer.recipient);
    return {
      amount: transfer.amount,
      createdAt: transfer.createdAt,
      currency: 'NGN',
      domain: 'live',
      failures: null,
      id: transfer.id,
      integration: 1,
      reason: transfer.reason,
      reference: transfer.reference,
      source: 'balance',
      source_details: null,
      status: transfer.status,
      titan_code: null,
      transfer_code: transfer.transfer_code,
      transferred_at: transfer.status === 'success' ? transfer.updatedAt : null,
      updatedAt: transfer.updatedAt,
      recipient,
      session: { provider: null, id: null },
      gateway_response: transfer.status === 'failed' ? 'Beneficiary bank unavailable' : null,
    };
  }

  /**
   * `GET /bank`, in cursor pages of `perPage` but never more than 20 (the cursor is the next bank's index), so that an
   * adapter that does not follow `meta.next` misses banks.
   */
  private listBanks(query: URLSearchParams) {
    const perPage = Math.min(Number(query.get('perPage') ?? 50), 20);
    const from = Number(query.get('next') ?? 0);
    const page = this.banks.slice(from, from + perPage);
    const next = from + perPage < this.banks.length ? String(from + perPage) : null;
    const at = '2024-01-01T00:00:00.000Z';
    return {
      status: true,
      message: 'Banks retrieved',
      data: page.map((bank) => ({
        id: bank.id,
        name: bank.name,
        slug: bank.slug,
        code: bank.code,
        longcode: '',
        gateway: null,
        pay_with_bank: false,
        supports_transfer: true,
        available_for_direct_debit: false,
        active: true,
        is_deleted: false,
        country: 'Nigeria',
        currency: 'NGN',
        type: 'nuban',
        nip_sort_code: bank.nip_sort_code,
        createdAt: at,
        updatedAt: at,
      })),
      meta: { next, previous: from > 0 ? String(Math.max(0, from - perPage)) : null, perPage },
    };
  }
}

/** A customer as Paystack shows it inside a dedicated account or a transaction (`metadata` as each answer has it). */
function customerView(
  customer: { id: number; customer_code: string; email: string; first_name: string; last_name: string; phone: string },
  metadata: object | null,
) {
  return {
    id: customer.id,
    first_name: customer.first_name,
    last_name: customer.last_name,
    email: customer.email,
    customer_code: customer.customer_code,
    phone: customer.phone,
    metadata,
    risk_action: 'default',
    international_format_phone: customer.phone,
  };
}
