/**
 * Test-only fixtures shared by the routing specs (not a spec itself, and not exported from the library): the tenant,
 * the managed wallet and the cross-chain order every route spec starts from, 1000 USDC on base to BNB on bsc over
 * USDC -> ETH (Aerodrome), ETH base -> bsc (Across), ETH -> BNB (PancakeSwap).
 */
import type { SwapFees, Tenant } from '@ramp/contracts';
import { planRoute, type RouteLegSpec } from './plan';
import { isInitiated, type WithInitiation } from '@ramp/transactions';
import {
  evolveRoute,
  initialRouteState,
  type ManagedWallet,
  type RouteEvent,
  type RouteInitiated,
  type RouteKind,
  type RouteOrder,
  type RouteState,
} from './route';

export const AT = '2026-11-22T10:00:00.000Z';
const TRANSACTION_ID = 'txn_01M82JKS0653T6WKTARA9RFX7D';
const QUOTE_ID = 'qt_01M82JKS0653T6WKTARA9RFX7D';
/** An EIP-55 checksummed address on the destination chain. */
export const DESTINATION_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
export const TENANT: Tenant = { organizationId: 'org_a', environment: 'test', keyId: 'key_a' };
export const WALLET: ManagedWallet = { walletId: 'wal_01M82JKS0653T6WKTARA9RFX7D', chain: 'base', address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' };
export const USD_PRICES: Record<string, string> = { USDC: '1', ETH: '3200', BNB: '650' };

/** 5 platform fee and 2 bridge fee, kept at the source out of the 1000 USDC. */
const CROSS_CHAIN_FEES: SwapFees = { platformFee: '5', platformFeeFiat: '7500.00', bridgeFee: '2', totalFee: '7' };

export const CROSS_CHAIN_LEG_SPECS: RouteLegSpec[] = [
  { kind: 'swap', chain: 'base', fromToken: 'USDC', toToken: 'ETH', provider: 'Aerodrome' },
  { kind: 'bridge', fromChain: 'base', toChain: 'bsc', token: 'ETH', provider: 'Across' },
  { kind: 'swap', chain: 'bsc', fromToken: 'ETH', toToken: 'BNB', provider: 'PancakeSwap' },
];

/** The cross-chain order: 1000 USDC on base for 1.527692307692307692 BNB on bsc, at worst 1.512415384615384615 (1% slippage). */
export const crossChainOrder = (overrides: Partial<RouteOrder> = {}): RouteOrder => ({
  quoteId: QUOTE_ID,
  fromChain: 'base',
  toChain: 'bsc',
  fromToken: 'USDC',
  toToken: 'BNB',
  fromAmount: '1000',
  toAmount: '1.527692307692307692',
  minimumToAmount: '1.512415384615384615',
  slippage: 1,
  fees: CROSS_CHAIN_FEES,
  ...overrides,
});

/**
 * A route of `kind` initiated for `TENANT` from `WALLET`: by default the cross-chain order, its legs planned from the
 * 993 net of fees at `USD_PRICES`, delivered to `DESTINATION_ADDRESS`.
 */
export const initiatedRoute = (kind: RouteKind, overrides: Partial<RouteInitiated> = {}): RouteInitiated => ({
  transactionId: TRANSACTION_ID,
  kind,
  tenant: TENANT,
  walletId: WALLET.walletId,
  order: crossChainOrder(),
  legs: planRoute({
    legs: CROSS_CHAIN_LEG_SPECS,
    amountIn: '993',
    toAmount: '1.527692307692307692',
    minimumToAmount: '1.512415384615384615',
    slippagePercent: '1',
    usdPrices: USD_PRICES,
  }),
  destination: { kind: 'address', address: DESTINATION_ADDRESS },
  reference: 'order-1',
  callbackUrl: null,
  at: AT,
  ...overrides,
});

/** The state after events that begin with the initiation, as a job or the view sees it. */
export function foldInitiated(events: RouteEvent[]): WithInitiation<RouteState> {
  const state = events.reduce(evolveRoute, initialRouteState);
  if (!isInitiated(state)) throw new Error('the events do not begin with the initiation');
  return state;
}
