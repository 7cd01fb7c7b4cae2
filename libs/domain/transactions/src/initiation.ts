import { parseAddress, type ChainName } from '@ramp/chains';
import { invalidField, type OfframpQuote, type OnrampQuote, type QuoteKind, type SwapQuote, type TransferQuote, type WalletView } from '@ramp/contracts';
import { dec } from '@ramp/money';
import { checkTargetUrl, type AllowedHosts } from '@ramp/webhooks';

/**
 * The rules every initiation from a quote shares (on-ramp, off-ramp, swap, transfer), pure: the request's fields, and
 * the managed wallet or the address that stands in for it, checked against the quote before the quote is used.
 */

/** The quote each kind of transaction is initiated from. */
export type QuoteOf<K extends QuoteKind> = {
  onramp: OnrampQuote.Response;
  offramp: OfframpQuote.Response;
  swap: SwapQuote.Response;
  transfer: TransferQuote.Response;
}[K];

/** An optional string field: absent, null and '' are the same (undefined); anything else but a string is refused. */
export function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidField(field, 'must be a string');
  return value;
}

/**
 * A per-transaction callback URL: https only, no credentials, not a loopback, private or metadata host written as
 * such (WEBHOOK_ALLOW_HOSTS excepted). Names are resolved and checked when the notifier connects.
 */
export function parseCallbackUrl(value: unknown, allowed: AllowedHosts): string | null {
  const raw = optionalString(value, 'callbackUrl');
  if (raw === undefined) return null;
  const check = checkTargetUrl(raw, allowed);
  if (!check.ok) throw invalidField('callbackUrl', check.message, 'WEBHOOK_TARGET_REFUSED');
  return check.url.toString();
}

/** A managed wallet named by an initiation must be on the quote's chain (INVALID_REQUEST on walletId otherwise). */
export function checkWalletChain(wallet: WalletView, chain: string): void {
  if (wallet.chain !== chain) throw invalidField('walletId', `is on ${wallet.chain}; the quote is for ${chain}`, 'CHAIN_MISMATCH');
}

/** ...and, when it pays, hold at least the quoted amount of the token as available (not held) balance. */
export function checkWalletCanPay(wallet: WalletView, chain: string, tokenSymbol: string, amount: string): void {
  checkWalletChain(wallet, chain);
  const available = wallet.balances.find((balance) => balance.tokenSymbol === tokenSymbol)?.available ?? '0';
  if (dec(available).lt(amount)) throw invalidField('walletId', `has ${available} ${tokenSymbol} available; the quote needs ${amount}`, 'INSUFFICIENT_BALANCE');
}

/** The fields of an initiation request that every kind has. */
export interface InitiationRequest {
  quoteId: string;
  /** The managed wallet; absent when an address stands in for it. */
  walletId?: string;
  /**
   * The address the kind takes besides or instead of the wallet (an on-ramp's or a swap's `destinationAddress`, an
   * off-ramp's `sourceAddress`), unchecked until the quote's chain is known.
   */
  address?: string;
  reference: string | null;
  callbackUrl: string | null;
}

interface WalletRule {
  /** The address field the kind takes. */
  address?: 'destinationAddress' | 'sourceAddress';
  /** When the address may stand in for the wallet: the refusal of a request that gives both. */
  both?: string;
  /** The refusal of a request without a wallet (nor an address that stands in for it). */
  neither: string;
}

const WALLET_RULES: Record<QuoteKind, WalletRule> = {
  onramp: {
    address: 'destinationAddress',
    both: 'give walletId (a managed wallet) or destinationAddress, not both',
    neither: 'is required unless destinationAddress is given',
  },
  offramp: {
    address: 'sourceAddress',
    both: 'give walletId (custodial) or sourceAddress (non-custodial), not both',
    neither: 'is required unless sourceAddress is given (non-custodial)',
  },
  swap: { address: 'destinationAddress', neither: 'is required: the managed wallet the swap is paid from' },
  transfer: { neither: 'is required: the managed wallet the transfer is paid from' },
};

/** The request's fields checked as far as they can be without the quote (INVALID_REQUEST naming the field otherwise). */
export function parseInitiation(kind: QuoteKind, request: Record<string, unknown>, callbackHosts: AllowedHosts): InitiationRequest {
  const quoteId = request['quoteId'];
  if (typeof quoteId !== 'string' || quoteId === '') throw invalidField('quoteId', 'is required');
  const rule = WALLET_RULES[kind];
  const walletId = optionalString(request['walletId'], 'walletId');
  const address = rule.address && optionalString(request[rule.address], rule.address);
  if (rule.both && walletId && address) throw invalidField('walletId', rule.both);
  if (!walletId && !(rule.both && address)) throw invalidField('walletId', rule.neither);
  const reference = optionalString(request['reference'], 'reference') ?? null;
  const callbackUrl = parseCallbackUrl(request['callbackUrl'], callbackHosts);
  return { quoteId, walletId, address, reference, callbackUrl };
}

/** The kinds whose managed wallet pays (holds the quoted amount); an on-ramp's wallet receives. */
export type PayingKind = Exclude<QuoteKind, 'onramp'>;

/** What a managed wallet does with a quote: receives on its chain (on-ramp), or pays an amount of a token from it. */
export interface WalletTerms {
  chain: string;
  pays?: { tokenSymbol: string; amount: string };
}

export function walletTermsOf<K extends QuoteKind>(kind: K, quote: QuoteOf<K>): WalletTerms {
  if (kind === 'onramp') return { chain: (quote as OnrampQuote.Response).chain };
  if (kind === 'offramp') {
    const { chain, tokenSymbol, cryptoAmount } = quote as OfframpQuote.Response;
    return { chain, pays: { tokenSymbol, amount: cryptoAmount } };
  }
  const { fromChain, fromToken, fromAmount } = quote as SwapQuote.Response | TransferQuote.Response;
  return { chain: fromChain, pays: { tokenSymbol: fromToken, amount: fromAmount } };
}

/** The funds the ledger holds in a wallet for a transaction until it is captured or released (the hold's terms). */
export interface HoldTerms {
  walletId: string;
  tokenSymbol: string;
  amount: string;
}

/** The wallet side of an initiation once checked against its quote. */
export interface WalletSide {
  /** The address given instead of a wallet, valid on the quote's chain; null with a wallet. */
  address: string | null;
  /** What to hold in the wallet when it pays; null when it receives, or when there is no wallet. */
  hold: HoldTerms | null;
}

/**
 * Checks the wallet against the quote (its chain, and when it pays, its available balance), or, without a wallet,
 * the address that stands in for it on the quote's chain.
 */
export function checkWalletSide<K extends QuoteKind>(kind: K, initiation: InitiationRequest, quote: QuoteOf<K>, wallet: WalletView | undefined): WalletSide {
  const terms = walletTermsOf(kind, quote);
  if (!wallet) {
    const field = WALLET_RULES[kind].address;
    if (!WALLET_RULES[kind].both || !field) throw invalidField('walletId', WALLET_RULES[kind].neither);
    return { address: parseAddress(terms.chain as ChainName, initiation.address, field), hold: null };
  }
  if (!terms.pays) {
    checkWalletChain(wallet, terms.chain);
    return { address: null, hold: null };
  }
  checkWalletCanPay(wallet, terms.chain, terms.pays.tokenSymbol, terms.pays.amount);
  return { address: null, hold: { walletId: wallet.walletId, ...terms.pays } };
}
