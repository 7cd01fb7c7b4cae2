import { tokenDecimals } from '@ramp/chains';
import type { TransferQuote } from '@ramp/contracts';
import { dec, formatToken, ROUND_DOWN } from '@ramp/money';
import type { TransactionKind } from '@ramp/transactions';
import {
  destinationOf,
  evolveRoute,
  initialRouteState,
  routeOrder,
  type ManagedWallet,
  type RouteDestination,
  type RouteEvent,
  type RouteOrder,
  type RouteState,
} from '../route/route';
import { routeView } from '../route/view';

export const TRANSFER_KIND: TransactionKind<RouteState, RouteEvent> = {
  type: 'transfer',
  initialState: initialRouteState,
  evolve: evolveRoute,
  view: routeView,
};

/**
 * The slippage tolerance of a transfer's destination swap (a transfer quote has no slippage field): its toAmount may
 * come out at most this many percent lower, or the transfer fails and is given back.
 */
export const TRANSFER_SWAP_SLIPPAGE_PERCENT = 0.5;

/** A transfer goes to the quote's destinationAddress; on one chain without one (or to its own address), back into the managed wallet. */
export function transferDestination(quote: TransferQuote.Response, wallet: ManagedWallet): RouteDestination {
  return quote.destinationAddress === null
    ? { kind: 'wallet', walletId: wallet.walletId, address: wallet.address }
    : destinationOf(quote.destinationAddress, quote.toChain, wallet);
}

/** A transfer quote as the order the route executes: a bridge delivers exactly toAmount, a destination swap at worst 0.5% less. */
export function transferOrder(quote: TransferQuote.Response): RouteOrder {
  const swaps = quote.toToken !== quote.fromToken;
  const decimals = tokenDecimals(quote.toToken, quote.toChain);
  const minimum = swaps
    ? formatToken(
        dec(quote.toAmount)
          .mul(dec(1).sub(dec(TRANSFER_SWAP_SLIPPAGE_PERCENT).div(100)))
          .toDecimalPlaces(decimals, ROUND_DOWN),
        decimals,
      )
    : quote.toAmount;
  return routeOrder(quote, { minimumToAmount: minimum, slippage: TRANSFER_SWAP_SLIPPAGE_PERCENT });
}
