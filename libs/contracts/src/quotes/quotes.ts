import { rpc } from '../rpc/rpc';
import type { Settlement } from '../chain/chain';
import { TRANSACTION_TYPES, type FiatCurrency } from '../transactions/transactions';

/** Every quote carries an id (`qt_…`) and an expiry; a quote is used at most once, by its tenant. */
export interface QuoteBase {
  quoteId: string;
  expiresAt: string;
}

export interface RampFees {
  providerFee: string;
  platformFee: string;
  swapFee: string;
  totalFee: string;
}

export interface SwapFees {
  platformFee: string;
  platformFeeFiat: string;
  bridgeFee: string;
  totalFee: string;
}

export namespace OnrampQuote {
  export interface Request {
    amount: string;
    tokenSymbol: string;
    chain: string;
  }
  export interface Response extends QuoteBase {
    fiatAmount: string;
    fiatCurrency: FiatCurrency;
    cryptoAmount: string;
    tokenSymbol: string;
    chain: string;
    rate: string;
    fees: RampFees;
  }
  export const contract = rpc<Request, Response>('quote.v1.onramp.create');
}

export namespace OfframpQuote {
  export interface Request {
    amount: string;
    tokenSymbol: string;
    bankCode: string;
    accountNumber: string;
    chain: string;
  }
  export interface Response extends QuoteBase {
    cryptoAmount: string;
    tokenSymbol: string;
    chain: string;
    fiatAmount: string;
    fiatCurrency: FiatCurrency;
    rate: string;
    fees: RampFees;
    /** What the bank account receives: fiatAmount minus totalFee. */
    payoutAmount: string;
    bankAccount: { bankName: string; bankCode: string; accountNumber: string; accountName: string };
  }
  export const contract = rpc<Request, Response>('quote.v1.offramp.create');
}

export namespace SwapQuote {
  export interface Request {
    fromToken: string;
    toToken: string;
    amount: string;
    fromChain: string;
    toChain: string;
    slippage?: number;
  }
  export interface Response extends QuoteBase {
    fromToken: string;
    toToken: string;
    fromChain: string;
    toChain: string;
    fromAmount: string;
    toAmount: string;
    /** The least toAmount the swap executes for: toAmount less the slippage tolerance. */
    minimumToAmount: string;
    slippage: number;
    rate: string;
    isCrossChain: boolean;
    fees: SwapFees;
    route: { steps: number; estimatedTime: string; providers: string[] };
  }
  export const contract = rpc<Request, Response>('quote.v1.swap.create');
}

export namespace TransferQuote {
  export interface Request {
    fromChain: string;
    toChain: string;
    token: string;
    amount: string;
    toToken?: string;
    destinationAddress?: string;
  }
  export interface Response extends QuoteBase {
    fromChain: string;
    toChain: string;
    fromToken: string;
    toToken: string;
    fromAmount: string;
    toAmount: string;
    destinationAddress: string | null;
    fees: SwapFees;
    route: { steps: number; estimatedTime: string; bridge: string };
  }
  export const contract = rpc<Request, Response>('quote.v1.transfer.create');
}

export namespace BankList {
  export type Request = Record<string, never>;
  export type Response = { code: string; name: string }[];
  export const contract = rpc<Request, Response>('quote.v1.banks.list');
}

export namespace BankVerify {
  export interface Request {
    bankCode: string;
    accountNumber: string;
  }
  export interface Response {
    accountNumber: string;
    accountName: string;
    bankCode: string;
    bankName: string;
  }
  export const contract = rpc<Request, Response>('quote.v1.banks.verify');
}

/** `primary`: where managed wallets operate, and the source chains of swaps, transfers and off-ramps. */
export const CHAIN_TYPES = ['primary', 'secondary'] as const;

export namespace ChainList {
  export type Request = Record<string, never>;
  export interface TokenDescriptor {
    symbol: string;
    name: string;
    contractAddress: string;
    decimals: number;
    chain: string;
    logoUrl: string;
  }
  export interface ChainDescriptor {
    chain: string;
    chainId: number;
    name: string;
    type: (typeof CHAIN_TYPES)[number];
    /**
     * The network's public block explorer. Absent for a local test chain (a node the platform runs, with a faucet): its
     * transactions are on that node alone, and no public explorer has them.
     */
    explorerUrl?: string;
    tokens: TokenDescriptor[];
    /**
     * In answers to a key: `onchain` when its environment's chain is real (test keys: a test network or a local node,
     * with that network's chain id and token contracts), `simulated` for a sandbox rail whose hashes are on no chain.
     */
    settlement?: Settlement;
    /** `onchain` chains: the blocks a deposit needs before it is credited. */
    confirmations?: number;
    /**
     * Local test chains with the platform's pools: the DEX that swap and transfer quotes on the chain are priced from
     * (Uniswap V2: its router and factory), the token every pool pairs with, and the wrapped native coin that stands for
     * the native coin in the pools.
     */
    dex?: { name: string; router: string; factory: string; hub: string; wrappedNative: string };
    /** The platform's intent bridge on this chain (local test chains): its pool contract. */
    bridge?: { name: string; pool: string };
  }
  export type Response = ChainDescriptor[];
  export const contract = rpc<Request, Response>('quote.v1.chains.list');
}

/** A quote of each transaction type. */
export const QUOTE_KINDS = TRANSACTION_TYPES;
export type QuoteKind = (typeof QUOTE_KINDS)[number];

/**
 * Consumes a quote for an initiation: succeeds once per quote, for its own tenant and kind, before expiry.
 * Answers NOT_FOUND (unknown or another tenant's), CONFLICT (already used) or INVALID_REQUEST (expired, wrong kind).
 */
export namespace QuoteConsume {
  export interface Request {
    quoteId: string;
    kind: QuoteKind;
    /** Who consumes it, e.g. the transaction id; consuming again with the same consumer returns the quote again. */
    consumer: string;
  }
  export interface Response {
    quoteId: string;
    kind: QuoteKind;
    quote: OnrampQuote.Response | OfframpQuote.Response | SwapQuote.Response | TransferQuote.Response;
    consumedAt: string;
  }
  export const contract = rpc<Request, Response>('quote.v1.quote.consume');
}

/** Reads a quote that could still be used, without using it: initiations check it before they consume it. */
export namespace QuotePeek {
  export interface Request {
    quoteId: string;
    kind: QuoteKind;
  }
  export type Response = Omit<QuoteConsume.Response, 'consumedAt'>;
  export const contract = rpc<Request, Response>('quote.v1.quote.peek');
}
