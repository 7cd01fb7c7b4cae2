import { parseAddress, type ChainName } from '@ramp/chains';
import { invalidField, type SwapQuote } from '@ramp/contracts';
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

export const SWAP_KIND: TransactionKind<RouteState, RouteEvent> = { type: 'swap', initialState: initialRouteState, evolve: evolveRoute, view: routeView };

/**
 * Where a swap's proceeds go: back into the managed wallet when it stays on the wallet's chain and no address is
 * given (or its own address is); otherwise to `destinationAddress`, which must be valid for the destination chain and
 * is required across chains (the managed wallet lives on one chain).
 */
export function swapDestination(quote: SwapQuote.Response, wallet: ManagedWallet, destinationAddress: string | undefined): RouteDestination {
  if (destinationAddress === undefined) {
    if (quote.isCrossChain)
      throw invalidField('destinationAddress', `is required for a cross-chain swap: the address on ${quote.toChain} that receives the ${quote.toToken}`);
    return { kind: 'wallet', walletId: wallet.walletId, address: wallet.address };
  }
  return destinationOf(parseAddress(quote.toChain as ChainName, destinationAddress, 'destinationAddress'), quote.toChain, wallet);
}

/** A swap quote as the order the route executes: at worst its minimumToAmount, within its slippage. */
export function swapOrder(quote: SwapQuote.Response): RouteOrder {
  return routeOrder(quote, { minimumToAmount: quote.minimumToAmount, slippage: quote.slippage });
}
