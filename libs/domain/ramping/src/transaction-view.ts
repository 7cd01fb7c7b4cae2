import type { OfframpState } from './offramp';
import type { RampHashView, TransactionView } from '@ramp/transactions';
import type { OnrampState } from './onramp';

export function offrampView(state: OfframpState): TransactionView {
  const initiated = state.initiated;
  if (!initiated) throw new Error('offrampView of a transaction that does not exist');
  const { quote } = initiated;
  const view: TransactionView = {
    id: initiated.transactionId,
    type: 'offramp',
    status: state.status,
    chain: quote.chain,
    amount: quote.cryptoAmount,
    tokenSymbol: quote.tokenSymbol,
    // The hash of the CNGN transfer to the off-ramp provider once sent; before, the deposit's (non-custodial).
    transactionHash: state.payout?.transactionHash ?? state.swap?.transactionHash ?? state.deposit?.transactionHash,
    reference: initiated.reference ?? undefined,
    walletId: initiated.walletId ?? undefined,
    fees: { ...quote.fees },
    ramp: {
      fiatAmount: quote.fiatAmount,
      fiatCurrency: 'NGN',
      bankAccount: { ...quote.bankAccount },
      payoutAmount: quote.payoutAmount,
      rate: quote.rate,
    },
    depositAddress: initiated.depositAddress ?? undefined,
    depositExpiresAt: initiated.depositExpiresAt ?? undefined,
    sourceAddress: initiated.sourceAddress ?? undefined,
    depositTransactionHash: state.deposit?.transactionHash,
    refundTransactionHash: state.depositRefund,
    hashes: offrampHashes(state),
    createdAt: state.createdAt!,
    updatedAt: state.updatedAt!,
  };
  if (state.status === 'failed') Object.assign(view, failureOf(state));
  return view;
}

export function onrampView(state: OnrampState): TransactionView {
  const initiated = state.initiated;
  if (!initiated) throw new Error('onrampView of a transaction that does not exist');
  const { quote, virtualAccount } = initiated;
  const view: TransactionView = {
    id: initiated.transactionId,
    type: 'onramp',
    status: state.status,
    chain: quote.chain,
    amount: quote.cryptoAmount,
    tokenSymbol: quote.tokenSymbol,
    transactionHash: state.delivery ?? state.swap?.transactionHash ?? state.mint?.transactionHash,
    reference: initiated.reference ?? undefined,
    walletId: initiated.walletId ?? undefined,
    fees: { platformFee: quote.fees.platformFee, providerFee: quote.fees.providerFee, totalFee: quote.fees.totalFee, swapFee: quote.fees.swapFee },
    ramp: {
      fiatAmount: quote.fiatAmount,
      fiatCurrency: 'NGN',
      bankAccount: {
        bankName: virtualAccount.bankName,
        accountNumber: virtualAccount.accountNumber,
        accountName: virtualAccount.accountName,
        bankCode: virtualAccount.bankCode,
      },
      rate: quote.rate,
    },
    paymentInstructions: virtualAccount,
    destinationAddress: initiated.destinationAddress ?? undefined,
    hashes: onrampHashes(state),
    createdAt: state.createdAt!,
    updatedAt: state.updatedAt!,
  };
  if (state.status === 'failed') Object.assign(view, failureOf(state));
  return view;
}

/**
 * An off-ramp's hashes: a deposit that arrived on chain (it has its sender) and its refund are transactions on their
 * chain; the swap to CNGN and the CNGN's settlement to the provider are where the off-ramp runs (RampSettlement).
 */
function offrampHashes(state: OfframpState): RampHashView[] | undefined {
  const deposit = state.deposit && (state.deposit.from !== undefined ? 'onchain' : 'simulated');
  const settlement = state.initiated?.settlement ?? 'simulated';
  return present([
    state.deposit && { step: 'deposit', transactionHash: state.deposit.transactionHash, settlement: deposit! },
    state.swap && {
      step: 'swap',
      transactionHash: state.swap.transactionHash,
      settlement,
      ...(state.swap.userOperationHash !== undefined && { userOperationHash: state.swap.userOperationHash }),
    },
    state.payout?.transactionHash !== undefined && { step: 'settlement', transactionHash: state.payout.transactionHash, settlement },
    state.depositRefund !== undefined && { step: 'refund', transactionHash: state.depositRefund, settlement: deposit ?? 'simulated' },
  ]);
}

/**
 * An on-ramp's hashes, where it runs (RampSettlement): on chain, the sandbox issuer's mint of CNGN into the treasury,
 * the swap, and a delivery to an address are transactions on the chain; a delivery to a managed wallet is the ledger's
 * credit, shown with the hash that put the tokens in the hot wallet (the swap's, or the mint's for CNGN).
 */
function onrampHashes(state: OnrampState): RampHashView[] | undefined {
  const settlement = state.initiated?.settlement ?? 'simulated';
  return present([
    state.mint && { step: 'mint', transactionHash: state.mint.transactionHash, settlement },
    state.swap && { step: 'swap', transactionHash: state.swap.transactionHash, settlement },
    state.delivery !== undefined && { step: 'delivery', transactionHash: state.delivery, settlement },
  ]);
}

/** The hashes that exist, or undefined (absent) when none does yet. */
function present(hashes: (RampHashView | false | undefined)[]): RampHashView[] | undefined {
  const kept = hashes.filter((hash): hash is RampHashView => Boolean(hash));
  return kept.length > 0 ? kept : undefined;
}

/** What a failed transaction says about why: the message for people and the reason for programs. */
function failureOf(state: Pick<OfframpState, 'errorMessage' | 'failureReason'>): Pick<TransactionView, 'errorMessage' | 'failureReason'> {
  return { errorMessage: state.errorMessage ?? 'The transaction failed', failureReason: state.failureReason ?? 'TRANSACTION_FAILED' };
}
