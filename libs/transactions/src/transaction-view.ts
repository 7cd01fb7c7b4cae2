/** A virtual account to pay an on-ramp's NGN into. */
export interface VirtualAccount {
  bankName: string;
  bankCode: string;
  accountNumber: string;
  accountName: string;
  amount: string;
  expiresAt: string;
}

/** One step of a swap's or transfer's route as the transaction shows it (an extra beyond the spec). */
export interface RouteStepView {
  /** From 1, in the order they run. */
  step: number;
  kind: 'swap' | 'bridge';
  provider: string;
  fromChain: string;
  toChain: string;
  fromToken: string;
  toToken: string;
  /** What went in and came out (expected figures until the step has run). */
  amountIn: string;
  amountOut: string;
  status: 'pending' | 'completed' | 'failed' | 'reversed' | 'skipped';
  transactionHash: string | null;
  /** `skipped`: a failure before it meant it never ran. */
  /** When a failure unwound the step: the hash of the transaction that gave its funds back. */
  reversalHash?: string | null;
}

/** The spec's Transaction resource (plus documented extras), as GET /<type>/{id} and GET /transactions show it. */
export interface TransactionView {
  id: string;
  type: 'onramp' | 'offramp' | 'swap' | 'transfer';
  status: 'pending' | 'completed' | 'failed';
  chain: string;
  amount: string;
  tokenSymbol: string;
  transactionHash: string | null;
  reference: string | null;
  walletId: string | null;
  fees: { platformFee: string; providerFee: string; totalFee: string; swapFee?: string; bridgeFee?: string; platformFeeFiat?: string };
  ramp?: {
    fiatAmount: string;
    fiatCurrency: 'NGN';
    bankAccount: { bankName: string; accountNumber: string; accountName: string; bankCode?: string };
    payoutAmount?: string;
    rate?: string;
  };
  swap?: { fromToken: string; toToken: string; fromAmount: string; toAmount: string; fromChain?: string; toChain?: string; minimumToAmount?: string; slippage?: number };
  transfer?: { fromChain: string; toChain: string; destinationAddress: string; fromToken?: string; toToken?: string; fromAmount?: string; toAmount?: string };
  /** Extra, swaps and transfers: each step of the route with its own status and hash. */
  route?: { steps: RouteStepView[] };
  /** Extra, on-ramps: where to pay the NGN, and until when. */
  paymentInstructions?: VirtualAccount;
  /** Extra, on-ramps, swaps and transfers to an external address: where the crypto goes. */
  destinationAddress?: string | null;
  /** Extra: where a non-custodial off-ramp's deposit goes, and until when. */
  depositAddress?: string | null;
  depositExpiresAt?: string | null;
  sourceAddress?: string | null;
  errorMessage?: string;
  createdAt: string;
  updatedAt: string;
}
