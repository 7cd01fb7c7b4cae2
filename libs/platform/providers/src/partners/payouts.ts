import { paystackPayoutState, type PayoutState } from '@ramp/banking';
import { fromBaseUnits, toBaseUnits } from '@ramp/money';
import { flutterwavePayoutState, type FlutterwaveClient, type FlutterwaveTransfer } from './flutterwave';
import type { PartnerBankDirectory } from './partner-bank-directory';
import { PartnerError } from './partner-http';
import type { PaystackPayoutCalls, PaystackTransfer } from './paystack';

/** One bank payout, as the off-ramp asks a partner for it. */
export interface PayoutRequest {
  /** payoutReference(transactionId, attempt): the same for a repeat of the same attempt. */
  reference: string;
  /** The platform's code for the bank (CBN or NIBSS). */
  bankCode: string;
  accountNumber: string;
  accountName: string;
  /** Naira, a decimal string with at most 2 places. */
  amount: string;
  narration: string;
}

/** What the partner says of a payout (PayoutState), with its reason when it did not pay and its own code for it. */
export interface PayoutResult {
  state: PayoutState;
  reason?: string;
  partnerReference?: string;
}

/** A bank partner's payouts: send one, look one up by its reference, and the balance they are paid from. */
export interface PayoutProvider {
  readonly name: string;
  send(request: PayoutRequest): Promise<PayoutResult>;
  verify(reference: string): Promise<PayoutResult>;
  /** Naira available for payouts, a decimal string. */
  balance(): Promise<string>;
}

/**
 * Paystack payouts: a `nuban` recipient per account (kept for the process's life, and Paystack answers the same one
 * again anyway), then a transfer from the balance under the payout's reference. Whatever happens, the answer says
 * whether money may have moved: a refusal when asked is `rejected` (nothing exists), a lost answer is `unknown` (only
 * `verify` can tell), a "Duplicate Transfer Reference" is looked up (the first ask got through), and a transfer's own
 * status is read with paystackPayoutState.
 */
export class PaystackPayouts implements PayoutProvider {
  readonly name = 'paystack';
  private readonly recipients = new Map<string, string>();

  constructor(
    private readonly client: PaystackPayoutCalls,
    private readonly directory: Pick<PartnerBankDirectory, 'partnerCodeOf'>,
  ) {}

  async send(request: PayoutRequest): Promise<PayoutResult> {
    const bankCode = await this.directory.partnerCodeOf(request.bankCode).catch(() => undefined);
    if (bankCode === undefined) return { state: 'rejected', reason: `paystack does not list bank ${request.bankCode}` };
    try {
      const key = `${bankCode}:${request.accountNumber}`;
      let recipientCode = this.recipients.get(key);
      if (!recipientCode) {
        recipientCode = (await this.client.createRecipient({ name: request.accountName, accountNumber: request.accountNumber, paystackBankCode: bankCode }))
          .recipientCode;
        this.recipients.set(key, recipientCode);
      }
      const transfer = await this.client.initiateTransfer({
        amountKobo: toBaseUnits(request.amount, 2),
        recipientCode,
        reference: request.reference,
        reason: request.narration,
      });
      return resultOf(transfer);
    } catch (error) {
      return failedSend(error, /duplicate/i, () => this.verify(request.reference));
    }
  }

  verify(reference: string): Promise<PayoutResult> {
    return lookUp(this.name, () => this.client.verifyTransfer(reference), resultOf);
  }

  async balance(): Promise<string> {
    return fromBaseUnits(await this.client.balanceKobo(), 2);
  }
}

/**
 * What a send that threw means: the partner's refusal of a reused reference (`duplicate`) means an earlier ask got
 * through, so the transfer is looked up; any other refusal means nothing exists (`rejected`); no answer means it may
 * exist (`unknown`).
 */
function failedSend(error: unknown, duplicate: RegExp, verify: () => Promise<PayoutResult>): Promise<PayoutResult> | PayoutResult {
  if (!(error instanceof PartnerError)) throw error;
  if (error.kind === 'refused' && duplicate.test(error.message)) return verify();
  if (error.kind === 'refused') return { state: 'rejected', reason: error.message };
  return { state: 'unknown', reason: error.message };
}

/** A transfer looked up by reference: its state, `rejected` when the partner has none, `unknown` when it did not answer. */
async function lookUp<T>(provider: string, find: () => Promise<T | undefined>, resultOfTransfer: (transfer: T) => PayoutResult): Promise<PayoutResult> {
  try {
    const transfer = await find();
    return transfer ? resultOfTransfer(transfer) : { state: 'rejected', reason: `${provider} has no transfer with this reference` };
  } catch (error) {
    if (error instanceof PartnerError) return { state: 'unknown', reason: error.message };
    throw error;
  }
}

function resultOf(transfer: PaystackTransfer): PayoutResult {
  const state = paystackPayoutState(transfer.status);
  return {
    state,
    partnerReference: transfer.transfer_code,
    ...(state === 'failed' && { reason: transfer.gateway_response || `paystack transfer ${transfer.status}` }),
  };
}

/**
 * Flutterwave payouts: a transfer from the NGN balance under the payout's reference (no recipient step), read the
 * same way as Paystack's: refused when asked is `rejected`, a lost answer `unknown`, a reused reference looked up.
 */
export class FlutterwavePayouts implements PayoutProvider {
  readonly name = 'flutterwave';

  constructor(
    private readonly client: Pick<FlutterwaveClient, 'initiateTransfer' | 'findTransfer' | 'balance'>,
    private readonly directory: Pick<PartnerBankDirectory, 'partnerCodeOf'>,
  ) {}

  async send(request: PayoutRequest): Promise<PayoutResult> {
    const bankCode = await this.directory.partnerCodeOf(request.bankCode).catch(() => undefined);
    if (bankCode === undefined) return { state: 'rejected', reason: `flutterwave does not list bank ${request.bankCode}` };
    try {
      const transfer = await this.client.initiateTransfer({
        bankCode,
        accountNumber: request.accountNumber,
        amount: request.amount,
        reference: request.reference,
        narration: request.narration,
      });
      return flutterwaveResultOf(transfer);
    } catch (error) {
      if (!(error instanceof PartnerError)) throw error;
      if (error.kind === 'refused' && /reference/i.test(error.message) && /(duplicate|already|exist)/i.test(error.message))
        return this.verify(request.reference);
      if (error.kind === 'refused') return { state: 'rejected', reason: error.message };
      return { state: 'unknown', reason: error.message };
    }
  }

  async verify(reference: string): Promise<PayoutResult> {
    try {
      const transfer = await this.client.findTransfer(reference);
      return transfer ? flutterwaveResultOf(transfer) : { state: 'rejected', reason: 'flutterwave has no transfer with this reference' };
    } catch (error) {
      if (error instanceof PartnerError) return { state: 'unknown', reason: error.message };
      throw error;
    }
  }

  balance(): Promise<string> {
    return this.client.balance();
  }
}

function flutterwaveResultOf(transfer: FlutterwaveTransfer): PayoutResult {
  const state = flutterwavePayoutState(transfer.status);
  return { state, partnerReference: String(transfer.id), ...(state === 'failed' && { reason: transfer.complete_message || 'flutterwave transfer failed' }) };
}
