import type { PaginationMeta } from '../errors/envelope';
import { rpc } from '../rpc/rpc';
import type { TransactionView } from '../transactions/transaction-view';

/** The spec's Transaction as the services answer it: TransactionView, every field typed. */
export type TransactionRecord = TransactionView;

/** What an initiation answers: the pending transaction, with its id also as `transactionId` (as the off-ramp's). */
export type InitiatedTransaction = TransactionView & { transactionId: string };

export namespace OfframpInitiate {
  export interface Request {
    quoteId: string;
    walletId?: string;
    sourceAddress?: string;
    reference?: string;
    callbackUrl?: string;
  }
  export interface Response {
    transactionId: string;
    reference: string | null;
    status: 'pending';
    depositAddress: string | null;
    estimatedFiatAmount: string;
    estimatedArrival: string;
  }
  export const contract = rpc<Request, Response>('ramp.v1.offramp.initiate');
}

export namespace OnrampInitiate {
  /** The payer, for whom a live on-ramp's bank partner opens the account to pay into. */
  export interface Customer {
    email: string;
    firstName: string;
    lastName: string;
    phone: string;
  }
  export interface Request {
    quoteId: string;
    walletId?: string;
    destinationAddress?: string;
    reference?: string;
    callbackUrl?: string;
    /** Required with a live key; checked when given with a test key, and not used by the sandbox. */
    customer?: Customer;
  }
  /** The pending transaction, with `paymentInstructions`: the virtual account to pay the NGN into. */
  export type Response = InitiatedTransaction;
  export const contract = rpc<Request, Response>('ramp.v1.onramp.initiate');
}

/** `POST /sandbox/onramp/{transactionId}/pay` (test keys only): the NGN payment of an on-ramp arrives. */
export namespace SandboxPayment {
  export interface Request {
    transactionId: string;
    /** Defaults to the amount expected; another amount is refunded to the payer and fails the on-ramp. */
    amount?: string;
  }
  export const contract = rpc<Request, TransactionRecord>('ramp.v1.sandbox.pay');
}

export namespace RampTransactionGet {
  export interface Request {
    transactionId: string;
    type: 'onramp' | 'offramp';
  }
  export const contract = rpc<Request, TransactionRecord>('ramp.v1.transactions.get');
}

/** `POST /sandbox/offramp/{transactionId}/deposit` (test keys only): the crypto of a non-custodial off-ramp arrives. */
export namespace SandboxDeposit {
  export interface Request {
    transactionId: string;
    /** Defaults to the quoted amount; another amount is returned to the sender and fails the off-ramp. */
    amount?: string;
  }
  export const contract = rpc<Request, TransactionRecord>('ramp.v1.sandbox.deposit');
}

/** GET /transactions: the ledger's read model of every service's transactions, newest first. */
export namespace TransactionList {
  export interface Request {
    page?: string;
    limit?: string;
    type?: string;
    status?: string;
    chain?: string;
    walletId?: string;
    from?: string;
    to?: string;
  }
  export interface Response {
    data: TransactionRecord[];
    meta: PaginationMeta;
  }
  export const contract = rpc<Request, Response>('ledger.v1.transactions.list');
}

export namespace TransactionGet {
  export interface Request {
    transactionId: string;
  }
  export const contract = rpc<Request, TransactionRecord>('ledger.v1.transactions.get');
}

/**
 * A bank partner's event (`POST /partners/<provider>/webhook` on the gateway): the body exactly as it arrived, and its
 * signature header, for the ramp service to verify, record once and process from the record.
 */
export namespace PartnerEventReceive {
  export interface Request {
    provider: 'paystack' | 'flutterwave';
    /** The raw body, as UTF-8 text: its signature is checked over exactly these bytes. */
    rawBody: string;
    /** The partner's signature header (`x-paystack-signature`; Flutterwave's `verif-hash`). */
    signature?: string;
  }
  export interface Response {
    /** false: the partner sent this event before (a resend); it is recorded once. */
    recorded: boolean;
  }
  export const contract = rpc<Request, Response>('ramp.v1.partners.event');
}
