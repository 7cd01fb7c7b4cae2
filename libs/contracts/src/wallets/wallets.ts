import type { PaginationMeta } from '../errors/envelope';
import { rpc } from '../rpc/rpc';

/** A managed smart-account wallet on a primary chain, with its balances from the ledger. */
export interface WalletView {
  walletId: string;
  chain: 'base' | 'bsc';
  address: string;
  label: string | null;
  /** Every token of the wallet's chain: `available` can be spent; `held` is reserved for transactions in flight. */
  balances: { tokenSymbol: string; available: string; held: string }[];
  createdAt: string;
}

export namespace WalletCreate {
  export interface Request {
    chain: string;
    label?: string;
  }
  export const contract = rpc<Request, WalletView>('ledger.v1.wallets.create');
}

export namespace WalletList {
  export interface Request {
    page?: string;
    limit?: string;
  }
  export interface Response {
    data: WalletView[];
    meta: PaginationMeta;
  }
  export const contract = rpc<Request, Response>('ledger.v1.wallets.list');
}

export namespace WalletGet {
  export interface Request {
    walletId: string;
  }
  export const contract = rpc<Request, WalletView>('ledger.v1.wallets.get');
}

/**
 * `POST /sandbox/wallets/{walletId}/fund` (test keys only): a transfer from the test chain's faucet to the wallet's
 * address, answered once credited, with its hash; a wallet of a chain without a node is credited from the sandbox's
 * funding account (no hash).
 */
export namespace WalletFund {
  export interface Request {
    walletId: string;
    tokenSymbol: string;
    amount: string;
  }
  export type Response = WalletView & { transactionHash?: string };
  export const contract = rpc<Request, Response>('ledger.v1.sandbox.fund');
}

/**
 * Holds: services reserve funds of a wallet for a transaction (`holdId` = the transaction id), then capture them (the
 * funds left the wallet) or release them (back to the wallet). Each is idempotent by `holdId`.
 */
export namespace HoldPlace {
  export interface Request {
    holdId: string;
    walletId: string;
    tokenSymbol: string;
    amount: string;
  }
  export interface Response {
    holdId: string;
    walletId: string;
    chain: 'base' | 'bsc';
    tokenSymbol: string;
    amount: string;
    status: 'held' | 'captured' | 'released';
  }
  export const contract = rpc<Request, Response>('ledger.v1.holds.place');
}

export namespace HoldSettle {
  export interface Request {
    holdId: string;
    /** capture: the funds leave for `destination` (an external account name); release: they return to the wallet. */
    outcome: 'capture' | 'release';
    destination?: string;
    /** capture only: this much of the hold is the platform's fee and goes to `revenue:<account>` instead. */
    fee?: { amount: string; account: string };
    /**
     * capture only: in the same entry, credit the hold's wallet with what the captured funds bought (a swap's
     * proceeds), from the external account `source`. Once, with the capture.
     */
    credit?: { tokenSymbol: string; amount: string; source: string };
    /**
     * release only: the terms of a hold that may never have been placed (its placement was refused, or is still in
     * flight). When there is no such hold, it is recorded as released without moving anything, so that a placement
     * arriving later finds it settled and moves nothing either.
     */
    ifMissing?: { walletId: string; tokenSymbol: string; amount: string };
  }
  export const contract = rpc<Request, HoldPlace.Response>('ledger.v1.holds.settle');
}

/** Credits a managed wallet from an external account (an on-ramp's delivery); idempotent by `entryId`. */
export namespace WalletCredit {
  export interface Request {
    entryId: string;
    walletId: string;
    tokenSymbol: string;
    amount: string;
    /** The external account the tokens come from, e.g. `onramp-liquidity`. */
    source: string;
  }
  export const contract = rpc<Request, { entryId: string; applied: boolean }>('ledger.v1.wallets.credit');
}

/**
 * The treasury's inventory on each chain of an environment: what the platform holds of each token there (ChainHoldings,
 * at the watcher's checkpoint) less what it owes its customers of it (managed wallets' balances, available and held;
 * off-ramps' deposits in flight), as the ledger reconciles it. `free` is what the treasury may spend: a live on-ramp's
 * CNGN comes from it, and a quote it cannot cover is refused (INSUFFICIENT_LIQUIDITY). Decimal strings.
 */
export namespace TreasuryInventory {
  export interface Request {
    environment: 'test' | 'live';
  }
  export interface Entry {
    chain: string;
    tokenSymbol: string;
    held: string;
    owed: string;
    /** What live on-ramps' sends on their way (swaps, CNGN deliveries) have reserved of it (TreasuryReserve). */
    reserved: string;
    /** held − owed − reserved: what the treasury may still promise. */
    free: string;
  }
  export interface Response {
    environment: 'test' | 'live';
    inventory: Entry[];
  }
  export const contract = rpc<Request, Response>('ledger.v1.treasury.inventory');
}

/**
 * Reserves `amount` of the treasury's free inventory of `tokenSymbol` on `chain` for the send `reservationId` (a live
 * on-ramp's swap, or a CNGN on-ramp's delivery: the send's idempotency key), under a lock per chain and token, so that two on-ramps never both spend the
 * same CNGN (which would spend customers' own, the hot wallet holding both). `reserved: false` when the free inventory
 * (TreasuryInventory, less the other reservations) is short, with what is free. Asked again, the same id answers the
 * same reservation. It stands until that send is final (booked by the ledger) and an hour at the most.
 */
export namespace TreasuryReserve {
  export interface Request {
    environment: 'test' | 'live';
    chain: string;
    tokenSymbol: string;
    amount: string;
    reservationId: string;
  }
  export interface Response {
    reserved: boolean;
    free: string;
  }
  export const contract = rpc<Request, Response>('ledger.v1.treasury.reserve');
}
