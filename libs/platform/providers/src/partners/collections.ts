import { fromBaseUnits, toBaseUnits } from '@ramp/money';
import { PartnerError } from './partner-http';
import type { PaystackClient } from './paystack';

/** The payer of a live on-ramp (OnrampInitiate.Customer, as parseOnrampCustomer reads it). */
export interface CollectionPayer {
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
}

/** Where the payer pays: the partner's account, exactly as the partner gave it. */
export interface CollectionAccount {
  bankName: string;
  accountNumber: string;
  accountName: string;
  /** The partner's customer the account belongs to. */
  customerCode: string;
}

/** A payment into a collection account, as the partner's event tells it. */
export interface CollectionPayment {
  /** The partner's reference of the charge: what a refund names. */
  reference: string;
  accountNumber: string;
  /** Naira, a decimal string. */
  amount: string;
  customerCode: string;
  paidAt: string;
}

/** A bank partner's collections: an account for a payer, payments read from its events, refunds of a payment. */
export interface CollectionProvider {
  readonly name: string;
  openAccount(payer: CollectionPayer): Promise<CollectionAccount>;
  /** A payment from the partner's event, or undefined when the event is not a payment into a collection account. */
  paymentOf(event: { event: string; data: Record<string, unknown> }): CollectionPayment | undefined;
  /** Gives a payment back to the payer: `refunded` (done or under way), `rejected` (refused), `unknown` (no answer). */
  refund(payment: Pick<CollectionPayment, 'reference' | 'amount'>, note: string): Promise<{ state: 'refunded' | 'rejected' | 'unknown'; reason?: string }>;
}

/**
 * Paystack collections: a customer per payer (Paystack keeps one per email) and its dedicated virtual account at
 * PREFERRED_BANK; `charge.success` on the `dedicated_nuban` channel is a payment into one, matched by the account it was
 * paid into (`authorization.receiver_bank_account_number`) and its amount in kobo; a refund is `POST /refund`.
 */
export class PaystackCollections implements CollectionProvider {
  readonly name = 'paystack';

  constructor(
    private readonly client: Pick<PaystackClient, 'createCustomer' | 'createDedicatedAccount' | 'refund'>,
    private readonly preferredBank = 'wema-bank',
  ) {}

  async openAccount(payer: CollectionPayer): Promise<CollectionAccount> {
    const { customerCode } = await this.client.createCustomer(payer);
    const account = await this.client.createDedicatedAccount({ customerCode, preferredBank: this.preferredBank });
    return { bankName: account.bank.name, accountNumber: account.account_number, accountName: account.account_name, customerCode };
  }

  paymentOf(event: { event: string; data: Record<string, unknown> }): CollectionPayment | undefined {
    const data = event.data;
    if (event.event !== 'charge.success' || data.channel !== 'dedicated_nuban' || data.status !== 'success' || data.currency !== 'NGN') return undefined;
    const authorization = data.authorization as Record<string, unknown> | undefined;
    const customer = data.customer as Record<string, unknown> | undefined;
    const accountNumber = authorization?.receiver_bank_account_number;
    const amount = data.amount;
    if (typeof data.reference !== 'string' || typeof accountNumber !== 'string' || typeof customer?.customer_code !== 'string') return undefined;
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) return undefined;
    return {
      reference: data.reference,
      accountNumber,
      amount: fromBaseUnits(BigInt(amount), 2),
      customerCode: customer.customer_code,
      paidAt: typeof data.paid_at === 'string' ? data.paid_at : new Date().toISOString(),
    };
  }

  async refund(payment: Pick<CollectionPayment, 'reference' | 'amount'>, note: string) {
    try {
      const refund = await this.client.refund({ chargeReference: payment.reference, amountKobo: toBaseUnits(payment.amount, 2), note });
      // Paystack answers a queued refund (pending, processing, processed); `failed` gave nothing back.
      if (refund.status === 'failed') return { state: 'rejected' as const, reason: 'paystack answered the refund as failed' };
      return { state: 'refunded' as const };
    } catch (error) {
      if (!(error instanceof PartnerError)) throw error;
      return { state: error.kind === 'refused' ? ('rejected' as const) : ('unknown' as const), reason: error.message };
    }
  }
}
