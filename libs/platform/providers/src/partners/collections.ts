import { NIGERIAN_BANKS } from '@ramp/banking';
import { AppError, invalidField } from '@ramp/contracts';
import { fromBaseUnits, toBaseUnits } from '@ramp/money';
import { ByEnvironment } from '../by-environment';
import { Rotation, type RotationEntry } from './circuit-breaker';
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
  /** The bank's CBN (or NIBSS) code, as the platform's bank list has it. */
  bankCode: string;
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
  /**
   * Gives a payment back to the payer: `refunded` (done or under way), `rejected` (refused), `unknown` (no answer). Safe
   * to ask again after `unknown`: a refusal is believed only once the partner's own record of the payment says it was
   * not given back.
   */
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
    private readonly client: Pick<PaystackClient, 'createCustomer' | 'createDedicatedAccount' | 'refund' | 'verifyCharge'>,
    private readonly preferredBank = 'wema-bank',
  ) {}

  async openAccount(payer: CollectionPayer): Promise<CollectionAccount> {
    const { customerCode } = await this.client.createCustomer(payer);
    const account = await this.client.createDedicatedAccount({ customerCode, preferredBank: this.preferredBank });
    const bank = DEDICATED_ACCOUNT_BANKS[account.bank.slug] ?? NIGERIAN_BANKS.find((known) => known.name.toLowerCase() === account.bank.name.toLowerCase());
    // An account at a bank the platform cannot name by code is no payment instruction to give: it is not used.
    if (!bank)
      throw new PartnerError(
        'paystack',
        'dedicated_account_create',
        'unavailable',
        `opened an account at ${account.bank.name}, a bank the platform does not know`,
      );
    return { bankName: bank.name, bankCode: bank.code, accountNumber: account.account_number, accountName: account.account_name, customerCode };
  }

  paymentOf(event: { event: string; data: Record<string, unknown> }): CollectionPayment | undefined {
    const data = event.data;
    if (event.event !== 'charge.success' || data.channel !== 'dedicated_nuban' || data.status !== 'success' || data.currency !== 'NGN') return undefined;
    // A test-mode charge never pays a live on-ramp.
    if (data.domain !== undefined && data.domain !== 'live') return undefined;
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
      if (error.kind !== 'refused') return { state: 'unknown' as const, reason: error.message };
      // Paystack refuses a second full refund of a charge: after a refund whose answer was lost, the refusal of the
      // ask again is the first one's success. Only the charge's own record tells which: `reversed` (or a reversal under
      // way) is refunded in full.
      const charge = await this.client.verifyCharge(payment.reference).catch((lookUp: unknown) => {
        if (lookUp instanceof PartnerError) return null;
        throw lookUp;
      });
      if (charge === null) return { state: 'unknown' as const, reason: `${error.message}; the charge could not be looked up` };
      if (charge && /revers/i.test(charge.status)) return { state: 'refunded' as const };
      return { state: 'rejected' as const, reason: error.message };
    }
  }
}

/** Paystack's dedicated-account banks by slug (`preferred_bank`), with their codes in the platform's bank list. */
const DEDICATED_ACCOUNT_BANKS: Record<string, { name: string; code: string } | undefined> = {
  'wema-bank': { name: 'Wema Bank', code: '035' },
  'titan-paystack': { name: 'Titan Trust Bank', code: '102' },
};

/** A payer's account opened by a live collection partner, with the partner's name. */
export type OpenedCollectionAccount = CollectionAccount & { provider: string };

/**
 * The live collection partners in their configured order (COLLECTION_PROVIDERS), each behind a circuit breaker. An
 * account is opened at the first partner in rotation, and at the next one when it is unavailable (opening is asked
 * again safely: a partner answers the same customer and account for the same payer). A payment's event, and its
 * refund, belong to the partner that opened its account.
 */
export class LiveCollections {
  private readonly rotation: Rotation<CollectionProvider>;
  private readonly byName: Map<string, RotationEntry<CollectionProvider>>;

  constructor(entries: readonly RotationEntry<CollectionProvider>[]) {
    this.rotation = new Rotation(entries);
    this.byName = new Map(entries.map((entry) => [entry.name, entry]));
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  /**
   * The payer's account at the first partner in rotation. A partner that cannot be reached is SERVICE_UNAVAILABLE
   * (try again), one that refuses the payer is INVALID_FIELD on `customer`: never an internal error, and asked before
   * the on-ramp's quote is used, so the quote stays usable.
   */
  async openAccount(payer: CollectionPayer): Promise<OpenedCollectionAccount> {
    try {
      return await this.rotation.first(async (provider, name) => ({ provider: name, ...(await provider.openAccount(payer)) }));
    } catch (error) {
      if (!(error instanceof PartnerError)) throw error;
      if (error.kind === 'refused') throw invalidField('customer', `the bank partner refused to open an account for this payer: ${error.message}`);
      throw new AppError('SERVICE_UNAVAILABLE', "The bank partner could not open the payer's account: try again in a moment");
    }
  }

  /** The partner named, or undefined when it is no longer configured (its payments wait for it to come back). */
  provider(name: string): CollectionProvider | undefined {
    return this.byName.get(name)?.provider;
  }

  /** A refund at the partner that took the payment; an unanswered one counts against its breaker. */
  async refund(name: string, payment: Pick<CollectionPayment, 'reference' | 'amount'>, note: string): ReturnType<CollectionProvider['refund']> {
    const entry = this.byName.get(name);
    if (!entry) return { state: 'unknown', reason: `collection provider ${name} is not configured (COLLECTION_PROVIDERS): an operator must put it back` };
    const result = await entry.provider.refund(payment, note);
    if (result.state === 'unknown') entry.breaker.failed();
    else entry.breaker.succeeded();
    return result;
  }
}

/** Who collects an on-ramp's Naira: the sandbox's virtual accounts (test keys) or the live collection partners. */
export type OnrampCollection = { kind: 'sandbox' } | { kind: 'live'; collections: LiveCollections };

/**
 * An on-ramp's collection by environment (ByEnvironment): a live key without a collection partner configured is
 * refused (LIVE_MODE_DISABLED) at quote time, and its payment instructions are never the sandbox's.
 */
export class OnrampCollections extends ByEnvironment<OnrampCollection> {
  constructor(liveCollections: LiveCollections | undefined) {
    super('Live on-ramps need a bank partner for collections', { kind: 'sandbox' }, liveCollections && { kind: 'live', collections: liveCollections });
  }
}
