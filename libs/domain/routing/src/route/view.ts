import { isInitiated, type RouteStepView, type TransactionView, type WithInitiation } from '@ramp/transactions';
import { legOrder, type RouteState } from './route';

/** Each leg with its own status and hash: what ran, what failed, what was unwound, what is still to come. */
export function routeSteps(state: WithInitiation<RouteState>): RouteStepView[] {
  const { initiated } = state;
  return initiated.legs.map((leg, index) => {
    const ran = state.executed[index];
    const reversal = state.reversed[index];
    const expected = index <= state.executed.length ? legOrder(state, index) : leg;
    const status: RouteStepView['status'] =
      reversal !== undefined ? 'reversed' : ran ? 'completed' : state.failedLeg === index ? 'failed' : state.failing !== undefined ? 'skipped' : 'pending';
    const view: RouteStepView = {
      step: index + 1,
      kind: leg.kind,
      provider: leg.provider,
      fromChain: leg.fromChain,
      toChain: leg.toChain,
      fromToken: leg.fromToken,
      toToken: leg.toToken,
      amountIn: expected.amountIn,
      amountOut: ran?.amountOut ?? expected.amountOut,
      status,
      // Swaps on the platform's pools of a local chain run on chain; bridges, and routes through them, on the sandbox's
      // rails (docs/chains.md). Legs planned before settlement was recorded ran on the rails.
      settlement: leg.settlement ?? 'simulated',
    };
    if (ran) view.transactionHash = ran.transactionHash;
    if (ran?.userOperationHash !== undefined) view.userOperationHash = ran.userOperationHash;
    // A leg whose own transaction reverted on chain: its hash, to look the failure up.
    else if (status === 'failed' && state.failedHash !== undefined) view.transactionHash = state.failedHash;
    if (reversal !== undefined) view.reversalHash = reversal;
    return view;
  });
}

/** The latest on-chain hash: the last unwinding once a failure unwinds, otherwise the last leg that ran. */
function latestHash(state: RouteState): string | undefined {
  const reversals = Object.entries(state.reversed).sort(([a], [b]) => Number(a) - Number(b));
  if (reversals.length > 0) return reversals[0]![1];
  return state.executed[state.executed.length - 1]?.transactionHash;
}

/**
 * The spec's Transaction for a swap or a transfer: `chain`, `amount` and `tokenSymbol` are the source side; `fees`
 * are in the source token (platformFee, providerFee = the bridge fee, totalFee; bridgeFee and platformFeeFiat as the
 * quote gave them); `swap` or `transfer` as the spec lists them (with the other side's figures as extras), and
 * `route.steps` with each leg's status and hash.
 */
export function routeView(state: RouteState): TransactionView {
  if (!isInitiated(state)) throw new Error('routeView of a transaction that does not exist');
  const { initiated } = state;
  const { order, destination } = initiated;
  const toAmount = state.toAmount ?? order.toAmount;
  const view: TransactionView = {
    id: initiated.transactionId,
    type: initiated.kind,
    status: state.status,
    chain: order.fromChain,
    amount: order.fromAmount,
    tokenSymbol: order.fromToken,
    transactionHash: latestHash(state),
    reference: initiated.reference ?? undefined,
    walletId: initiated.walletId,
    fees: {
      platformFee: order.fees.platformFee,
      providerFee: order.fees.bridgeFee,
      totalFee: order.fees.totalFee,
      bridgeFee: order.fees.bridgeFee,
      platformFeeFiat: order.fees.platformFeeFiat,
    },
    route: { steps: routeSteps(state) },
    destinationAddress: destination.address,
    createdAt: state.createdAt!,
    updatedAt: state.updatedAt!,
  };
  if (initiated.kind === 'swap') {
    view.swap = {
      fromToken: order.fromToken,
      toToken: order.toToken,
      fromAmount: order.fromAmount,
      toAmount,
      fromChain: order.fromChain,
      toChain: order.toChain,
      minimumToAmount: order.minimumToAmount,
      slippage: order.slippage,
    };
  } else {
    view.transfer = {
      fromChain: order.fromChain,
      toChain: order.toChain,
      destinationAddress: destination.address,
      fromToken: order.fromToken,
      toToken: order.toToken,
      fromAmount: order.fromAmount,
      toAmount,
    };
  }
  if (state.status === 'failed')
    Object.assign(view, { errorMessage: state.errorMessage ?? 'The transaction failed', failureReason: state.failureReason ?? 'TRANSACTION_FAILED' });
  return view;
}
