import { paystackPayoutState, type PayoutState } from '@ramp/banking';
import { dec, fromBaseUnits, toBaseUnits } from '@ramp/money';
import { ByEnvironment } from '../by-environment';
import type { CircuitBreaker } from './circuit-breaker';
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
  /** What the partner says of the transfer under `reference`; `held` when it is for another amount than `amount` (Naira). */
  verify(reference: string, amount?: string): Promise<PayoutResult>;
  /** Naira available for payouts, a decimal string. */
  balance(): Promise<string>;
}

/**
 * Paystack payouts: a `nuban` recipient per account (kept for the process's life, and Paystack answers the same one
 * again anyway), then a transfer from the balance under the payout's reference. Whatever happens, the answer says
 * whether money may have moved (failedSend): `rejected` only when the first ask was refused and no transfer exists
 * under the reference, `unknown` whenever it may exist, and a transfer's own status read with paystackPayoutState.
 */
export class PaystackPayouts implements PayoutProvider {
  readonly name = 'paystack';
  private readonly recipients = new Map<string, string>();

  constructor(
    private readonly client: PaystackPayoutCalls,
    private readonly directory: Pick<PartnerBankDirectory, 'partnerCodeOf'>,
  ) {}

  async send(request: PayoutRequest): Promise<PayoutResult> {
    const bankCode = await partnerCodeOf(this.directory, request.bankCode, this.name);
    if (typeof bankCode !== 'string') return bankCode;
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
      return failedSend(
        error,
        this.name,
        () => this.client.verifyTransfer(request.reference),
        resultOf,
        (transfer) => transfer.amount === Number(toBaseUnits(request.amount, 2)),
      );
    }
  }

  verify(reference: string, amount?: string): Promise<PayoutResult> {
    return lookUp(
      this.name,
      () => this.client.verifyTransfer(reference),
      resultOf,
      (transfer) => amount === undefined || transfer.amount === Number(toBaseUnits(amount, 2)),
    );
  }

  async balance(): Promise<string> {
    return fromBaseUnits(await this.client.balanceKobo(), 2);
  }
}

/**
 * The partner's code for the bank, before anything is sent: a bank it does not list is `rejected` (nothing was sent);
 * a bank list it cannot give now is `unknown`, so the same attempt is sent again later rather than given up.
 */
async function partnerCodeOf(directory: Pick<PartnerBankDirectory, 'partnerCodeOf'>, bankCode: string, provider: string): Promise<string | PayoutResult> {
  try {
    return (await directory.partnerCodeOf(bankCode)) ?? { state: 'rejected', reason: `${provider} does not list bank ${bankCode}` };
  } catch (error) {
    if (error instanceof PartnerError) return { state: 'unknown', reason: `${provider}'s bank list is unavailable: ${error.message}` };
    throw error;
  }
}

/**
 * What a send that threw means. No answer: the transfer may exist (`unknown`). A refusal: the reference is looked up
 * first, since the refusal may be about an earlier attempt of this send that got through (a duplicate reference, a
 * balance it emptied); found, it is what the partner says of it (held when its amount is not the one asked); not found,
 * nothing exists (`rejected`), unless an attempt of this send got no answer, in which case only a send of the same
 * reference again can tell (`unknown`).
 */
async function failedSend<T>(
  error: unknown,
  provider: string,
  find: () => Promise<T | undefined>,
  resultOfTransfer: (transfer: T) => PayoutResult,
  sameAmount: (transfer: T) => boolean,
): Promise<PayoutResult> {
  if (!(error instanceof PartnerError)) throw error;
  if (error.kind !== 'refused') return { state: 'unknown', reason: error.message };
  let transfer: T | undefined;
  try {
    transfer = await find();
  } catch (lookupError) {
    if (lookupError instanceof PartnerError) return { state: 'unknown', reason: `${error.message}; the look-up failed: ${lookupError.message}` };
    throw lookupError;
  }
  if (transfer !== undefined) {
    if (!sameAmount(transfer)) return { state: 'held', reason: `${provider} holds a transfer under this reference for another amount: an operator must look` };
    return resultOfTransfer(transfer);
  }
  return error.afterLostAnswer ? { state: 'unknown', reason: error.message } : { state: 'rejected', reason: error.message };
}

/**
 * A transfer looked up by reference: its state; `held` when it is not for the amount the payout asked (`sameAmount`:
 * paid or not, it is not this payout as asked, and an operator must look); `unknown` when the partner has none (it
 * may not show it yet: only a send of the same reference again settles it) or does not answer.
 */
async function lookUp<T>(
  provider: string,
  find: () => Promise<T | undefined>,
  resultOfTransfer: (transfer: T) => PayoutResult,
  sameAmount: (transfer: T) => boolean = () => true,
): Promise<PayoutResult> {
  try {
    const transfer = await find();
    if (transfer && !sameAmount(transfer))
      return { state: 'held', reason: `${provider} holds a transfer under this reference for another amount: an operator must look` };
    return transfer ? resultOfTransfer(transfer) : { state: 'unknown', reason: `${provider} shows no transfer with this reference (yet)` };
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
 * same way as Paystack's (failedSend, lookUp).
 */
export class FlutterwavePayouts implements PayoutProvider {
  readonly name = 'flutterwave';

  constructor(
    private readonly client: Pick<FlutterwaveClient, 'initiateTransfer' | 'findTransfer' | 'balance'>,
    private readonly directory: Pick<PartnerBankDirectory, 'partnerCodeOf'>,
  ) {}

  async send(request: PayoutRequest): Promise<PayoutResult> {
    const bankCode = await partnerCodeOf(this.directory, request.bankCode, this.name);
    if (typeof bankCode !== 'string') return bankCode;
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
      return failedSend(
        error,
        this.name,
        () => this.client.findTransfer(request.reference),
        flutterwaveResultOf,
        (transfer) => dec(transfer.amount).eq(request.amount),
      );
    }
  }

  verify(reference: string, amount?: string): Promise<PayoutResult> {
    return lookUp(
      this.name,
      () => this.client.findTransfer(reference),
      flutterwaveResultOf,
      (transfer) => amount === undefined || dec(transfer.amount).eq(amount),
    );
  }

  balance(): Promise<string> {
    return this.client.balance();
  }
}

function flutterwaveResultOf(transfer: FlutterwaveTransfer): PayoutResult {
  const state = flutterwavePayoutState(transfer.status);
  return { state, partnerReference: String(transfer.id), ...(state === 'failed' && { reason: transfer.complete_message || 'flutterwave transfer failed' }) };
}

/** One configured payout provider with its breaker. */
export interface PayoutEntry {
  name: string;
  provider: PayoutProvider;
  breaker: CircuitBreaker;
}

/**
 * The live payout providers in their configured order (PAYOUT_PROVIDERS), each behind a circuit breaker. It does not
 * choose: the off-ramp's process does, by nextPayoutStep over `available()`, so that an attempt stays with the partner
 * it was recorded at. A send or a look that gets no answer (`unknown`) counts against the partner's breaker.
 */
export class LivePayouts {
  private readonly byName: ReadonlyMap<string, PayoutEntry>;

  constructor(readonly entries: readonly PayoutEntry[]) {
    if (entries.length === 0) throw new Error('live payouts need at least one provider');
    this.byName = new Map(entries.map((entry) => [entry.name, entry]));
  }

  /** The providers a new attempt may go to, in order: those whose circuit is not open. */
  available(): string[] {
    return this.entries.filter((entry) => entry.breaker.state !== 'open').map((entry) => entry.name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  send(name: string, request: PayoutRequest): Promise<PayoutResult> {
    return this.observed(name, (provider) => provider.send(request));
  }

  verify(name: string, reference: string, amount?: string): Promise<PayoutResult> {
    return this.observed(name, (provider) => provider.verify(reference, amount));
  }

  /** The partner's balance for payouts, or undefined when it does not answer (counted against its breaker). */
  async balance(name: string): Promise<string | undefined> {
    const entry = this.entry(name);
    try {
      const balance = await entry.provider.balance();
      entry.breaker.succeeded();
      return balance;
    } catch (error) {
      if (!(error instanceof PartnerError)) throw error;
      if (error.kind === 'unavailable') entry.breaker.failed();
      return undefined;
    }
  }

  private async observed(name: string, call: (provider: PayoutProvider) => Promise<PayoutResult>): Promise<PayoutResult> {
    const entry = this.entry(name);
    const result = await call(entry.provider);
    if (result.state === 'unknown') entry.breaker.failed();
    else entry.breaker.succeeded();
    return result;
  }

  private entry(name: string): PayoutEntry {
    const entry = this.byName.get(name);
    if (!entry) throw new Error(`payout provider ${name} is not configured (PAYOUT_PROVIDERS): an operator must look`);
    return entry;
  }
}

/** Who pays an off-ramp's Naira: the sandbox's rails (test keys) or the live payout partners (live keys). */
export type OfframpPayout = { kind: 'sandbox' } | { kind: 'live'; payouts: LivePayouts };

/**
 * An off-ramp's payout by environment (ByEnvironment): a live key without a payout partner configured is refused
 * (LIVE_MODE_DISABLED) at quote time, and its payout is never the sandbox's.
 */
export class OfframpPayouts extends ByEnvironment<OfframpPayout> {
  constructor(livePayouts: LivePayouts | undefined) {
    super('Live off-ramps need a bank partner for payouts', { kind: 'sandbox' }, livePayouts && { kind: 'live', payouts: livePayouts });
  }
}
