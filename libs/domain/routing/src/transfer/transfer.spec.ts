import type { TransferQuote } from '@ramp/contracts';
import { viewAtVersion } from '@ramp/transactions';
import { ROUTE_KINDS } from '../index';
import { AT as at, initiatedRoute, WALLET as wallet } from '../route/fixtures.spec-helper';
import { decideRoute, evolveRoute, initialRouteState, nextRouteStep, planOrder, type RouteEvent, type RouteInitiated } from '../route/route';
import { TRANSFER_KIND, TRANSFER_SWAP_SLIPPAGE_PERCENT, transferDestination, transferOrder } from './transfer';

/** 100 USDC from base to bsc, 0.5 platform fee and 0.3 bridge fee kept at the source: the bridge-only quote's terms, which its order keeps. */
const bridgeTerms = {
  quoteId: 'qt_01M82JKS0653T6WKTARA9RFX7D',
  fromChain: 'base',
  toChain: 'bsc',
  fromToken: 'USDC',
  toToken: 'USDC',
  fromAmount: '100',
  toAmount: '99.2',
  fees: { platformFee: '0.5', platformFeeFiat: '750.00', bridgeFee: '0.3', totalFee: '0.8' },
};

/** The bridge-only quote, over Across. */
const bridgeOnly: TransferQuote.Response = {
  ...bridgeTerms,
  expiresAt: '2026-11-22T10:00:30.000Z',
  destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  route: { steps: 1, estimatedTime: '1-3 minutes', bridge: 'Across' },
};

/** The same, then USDC -> BNB on bsc (PancakeSwap) over Stargate. */
const withSwap: TransferQuote.Response = {
  ...bridgeOnly,
  quoteId: 'qt_01M82JKS0653T6WKTARA9RFX7E',
  toToken: 'BNB',
  toAmount: '0.152615384615384615',
  route: { steps: 2, estimatedTime: '2-5 minutes', bridge: 'Stargate' },
};

describe('transferOrder', () => {
  it('promises exactly toAmount for a bridge-only transfer', () => {
    expect(transferOrder(bridgeOnly)).toEqual({ ...bridgeTerms, minimumToAmount: '99.2', slippage: 0.5 });
    expect(TRANSFER_SWAP_SLIPPAGE_PERCENT).toBe(0.5);
  });

  it("lets a destination swap give 0.5% less, cut down to the token's 18 decimals (BNB on bsc)", () => {
    // 0.152615384615384615 * 0.995 = 0.151852307692307691925
    expect(transferOrder(withSwap)).toMatchObject({ toToken: 'BNB', toAmount: '0.152615384615384615', minimumToAmount: '0.151852307692307691', slippage: 0.5 });
  });

  it('cuts the minimum down to 6 decimals for USDC on base', () => {
    const toBase: TransferQuote.Response = {
      ...withSwap,
      fromChain: 'bsc',
      toChain: 'base',
      fromToken: 'BNB',
      toToken: 'USDC',
      fromAmount: '0.16',
      toAmount: '99.123457',
    };
    // 99.123457 * 0.995 = 98.627839715
    expect(transferOrder(toBase).minimumToAmount).toBe('98.627839');
  });
});

describe('transferDestination', () => {
  it("delivers to the quote's destination address", () => {
    expect(transferDestination(bridgeOnly, wallet)).toEqual({ kind: 'address', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' });
  });

  it('delivers back into the managed wallet when the quote has no destination', () => {
    expect(transferDestination({ ...bridgeOnly, toChain: 'base', destinationAddress: null }, wallet)).toEqual({
      kind: 'wallet',
      walletId: 'wal_01M82JKS0653T6WKTARA9RFX7D',
      address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    });
  });
});

const initiation = (quote: TransferQuote.Response, legs: RouteInitiated['legs']): RouteInitiated =>
  initiatedRoute('transfer', {
    order: transferOrder(quote),
    legs,
    destination: transferDestination(quote, wallet),
    reference: 'payout-42',
    callbackUrl: 'https://merchant.example/webhooks',
  });

const bridgeLegs = planOrder(transferOrder(bridgeOnly), [{ kind: 'bridge', fromChain: 'base', toChain: 'bsc', token: 'USDC', provider: 'Across' }], {});
const swapLegs = planOrder(
  transferOrder(withSwap),
  [
    { kind: 'bridge', fromChain: 'base', toChain: 'bsc', token: 'USDC', provider: 'Stargate' },
    { kind: 'swap', chain: 'bsc', fromToken: 'USDC', toToken: 'BNB', provider: 'PancakeSwap' },
  ],
  { USDC: '1', BNB: '650' },
);

describe("a transfer's route", () => {
  it('bridges the amount net of fees and delivers exactly toAmount', () => {
    expect(bridgeLegs).toEqual([
      {
        kind: 'bridge',
        provider: 'Across',
        fromChain: 'base',
        toChain: 'bsc',
        fromToken: 'USDC',
        toToken: 'USDC',
        amountIn: '99.2',
        amountOut: '99.2',
        minimumOut: '99.2',
      },
    ]);
    expect(swapLegs[1]).toMatchObject({ kind: 'swap', amountIn: '99.2', amountOut: '0.152615384615384615', minimumOut: '0.151852307692307691' });
  });

  it('fails the destination swap below the 0.5% minimum, and unwinds the bridge first', () => {
    const events: RouteEvent[] = [
      { type: 'transfer.initiated', data: initiation(withSwap, swapLegs) },
      { type: 'transfer.funds_held', data: { at } },
      { type: 'transfer.leg_completed', data: { index: 0, amountOut: '99.2', transactionHash: '0xbridge', at } },
    ];
    const state = events.reduce(evolveRoute, initialRouteState);
    const decided = decideRoute({ type: 'recordLeg', index: 1, ok: false, reason: 'reverted', wouldGive: '0.15', at }, state);
    expect(decided).toEqual([
      {
        type: 'transfer.failing',
        data: {
          errorMessage:
            'Slippage exceeded: the USDC to BNB swap on bsc (PancakeSwap) would give 0.15 BNB, less than the minimum of 0.151852307692307691 BNB that the 0.5% slippage tolerance allows',
          failureReason: 'SLIPPAGE_EXCEEDED',
          failedLeg: 1,
          at,
        },
      },
    ]);
    expect(nextRouteStep(decided.reduce(evolveRoute, state))).toEqual({ kind: 'reverseLeg', index: 0 });
  });
});

describe('TRANSFER_KIND: the transfer as the swap-transfer service shows it at each version of its stream', () => {
  const stream = 'transfer-txn_01M82JKS0653T6WKTARA9RFX7D';
  const envelopes = [
    { streamId: stream, streamVersion: 1, type: 'transfer.initiated', data: initiation(bridgeOnly, bridgeLegs) },
    { streamId: stream, streamVersion: 2, type: 'transfer.funds_held', data: { at } },
    { streamId: stream, streamVersion: 3, type: 'transfer.leg_completed', data: { index: 0, amountOut: '99.2', transactionHash: '0xbridge', at } },
    { streamId: stream, streamVersion: 4, type: 'transfer.completed', data: { toAmount: '99.2', at } },
  ];

  it('is the transfer kind, folding with the route decider', () => {
    expect(TRANSFER_KIND.type).toBe('transfer');
    expect(TRANSFER_KIND.evolve).toBe(evolveRoute);
    expect(TRANSFER_KIND.initialState).toBe(initialRouteState);
  });

  it('shows the transfer view at each version, in order', () => {
    const views = envelopes.map((envelope) => viewAtVersion(ROUTE_KINDS, envelopes, envelope.streamVersion));
    expect(views.map((view) => view?.status)).toEqual(['pending', 'pending', 'pending', 'completed']);
    expect(views[3]).toMatchObject({
      type: 'transfer',
      reference: 'payout-42',
      transactionHash: '0xbridge',
      transfer: { fromChain: 'base', toChain: 'bsc', destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', toAmount: '99.2' },
    });
    expect(views[3]).not.toHaveProperty('swap');
  });

  it("folds only its own kind's events", () => {
    expect(viewAtVersion([TRANSFER_KIND], [{ streamVersion: 1, type: 'swap.initiated', data: {} }], 1)).toBeUndefined();
  });
});
