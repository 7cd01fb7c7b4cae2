import type { Settlement } from '../chain/chain';
import type { FailureReason } from '../errors/reasons';
import type { FiatCurrency, RampHashStep, RouteStepKind, RouteStepStatus, TransactionStatus, TransactionType } from './transactions';

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
  kind: RouteStepKind;
  provider: string;
  fromChain: string;
  toChain: string;
  fromToken: string;
  toToken: string;
  /** What went in and came out (expected figures until the step has run). */
  amountIn: string;
  amountOut: string;
  status: RouteStepStatus;
  /** Once the step has run (`skipped`: a failure before it meant it never ran). */
  transactionHash?: string;
  /**
   * Once the step has run from a managed wallet whose address is its smart account: the ERC-4337 UserOperation that
   * spent the wallet's funds (`transactionHash` is then the bundle that carried it, or for a bridge its fill).
   */
  userOperationHash?: string;
  /** When a failure unwound the step: the hash of the transaction that gave its funds back. */
  reversalHash?: string;
  /** Whether the step's hashes are transactions on their chain (`onchain`) or a sandbox rail's (`simulated`). */
  settlement: Settlement;
}

/** One hash of an on-ramp or off-ramp, with what it is and whether it is a transaction on its chain. */
export interface RampHashView {
  step: RampHashStep;
  transactionHash: string;
  settlement: Settlement;
  /** An off-ramp's swap from a managed wallet's own smart account: the UserOperation (`transactionHash` is its bundle). */
  userOperationHash?: string;
}

/**
 * The spec's Transaction resource (plus documented extras), as GET /<type>/{id} and GET /transactions show it, and as
 * the services answer it over NATS: the one wire type of a transaction. A field with no value is absent, never null: the
 * spec types them as strings.
 */
export interface TransactionView {
  id: string;
  type: TransactionType;
  status: TransactionStatus;
  chain: string;
  amount: string;
  tokenSymbol: string;
  transactionHash?: string;
  reference?: string;
  walletId?: string;
  fees: { platformFee: string; providerFee: string; totalFee: string; swapFee?: string; bridgeFee?: string; platformFeeFiat?: string };
  ramp?: {
    fiatAmount: string;
    fiatCurrency: FiatCurrency;
    bankAccount: { bankName: string; accountNumber: string; accountName: string; bankCode?: string };
    payoutAmount?: string;
    rate?: string;
  };
  swap?: {
    fromToken: string;
    toToken: string;
    fromAmount: string;
    toAmount: string;
    fromChain?: string;
    toChain?: string;
    minimumToAmount?: string;
    slippage?: number;
  };
  transfer?: { fromChain: string; toChain: string; destinationAddress: string; fromToken?: string; toToken?: string; fromAmount?: string; toAmount?: string };
  /** Extra, swaps and transfers: each step of the route with its own status and hash. */
  route?: { steps: RouteStepView[] };
  /** Extra, on-ramps: where to pay the NGN, and until when. */
  paymentInstructions?: VirtualAccount;
  /** Extra, on-ramps, swaps and transfers to an external address: where the crypto goes. */
  destinationAddress?: string;
  /** Extra: where a non-custodial off-ramp's deposit goes, and until when. */
  depositAddress?: string;
  depositExpiresAt?: string;
  sourceAddress?: string;
  /** Extra, on-ramps and off-ramps: every hash so far, in order, each with what it is and its settlement. */
  hashes?: RampHashView[];
  /** Extra, non-custodial off-ramps: the deposit's transaction on its chain, once received. */
  depositTransactionHash?: string;
  /** Extra, non-custodial off-ramps: the transaction that gave the deposit back to its sender. */
  refundTransactionHash?: string;
  /** Present when failed: what happened, for people. */
  errorMessage?: string;
  /** Present when failed: why, for programs (FAILURE_REASONS). */
  failureReason?: FailureReason;
  createdAt: string;
  updatedAt: string;
}
