import { AppError, type SwapQuote } from '@ramp/contracts';
import { viewAtVersion } from '@ramp/transactions';
import { ROUTE_KINDS } from '../index';
import { AT as at, crossChainOrder, DESTINATION_ADDRESS as CHECKSUMMED, initiatedRoute, WALLET as wallet } from '../route/fixtures.spec-helper';
import { planOrder } from '../route/route';
import { SWAP_KIND, swapDestination, swapOrder } from './swap';

const sameChain: SwapQuote.Response = {
  quoteId: 'qt_01M82JKS0653T6WKTARA9RFX7D',
  expiresAt: '2026-11-22T10:00:30.000Z',
  fromToken: 'USDC',
  toToken: 'ETH',
  fromChain: 'base',
  toChain: 'base',
  fromAmount: '100',
  toAmount: '0.03109375',
  minimumToAmount: '0.0307828125',
  slippage: 1,
  rate: '0.0003125',
  isCrossChain: false,
  fees: { platformFee: '0.5', platformFeeFiat: '750.00', bridgeFee: '0', totalFee: '0.5' },
  route: { steps: 1, estimatedTime: '30 seconds', providers: ['Aerodrome'] },
};

const crossChain: SwapQuote.Response = {
  ...sameChain,
  quoteId: 'qt_01M82JKS0653T6WKTARA9RFX7E',
  toToken: 'BNB',
  toChain: 'bsc',
  fromAmount: '1000',
  toAmount: '1.527692307692307692',
  minimumToAmount: '1.512415384615384615',
  rate: '0.00152769230769230769',
  isCrossChain: true,
  fees: { platformFee: '5', platformFeeFiat: '7500.00', bridgeFee: '2', totalFee: '7' },
  route: { steps: 3, estimatedTime: '2-5 minutes', providers: ['Aerodrome', 'Across', 'PancakeSwap'] },
};

/** The same-chain swap's one leg, USDC -> ETH on base (Aerodrome), planned from its order. */
const sameChainLegs = () =>
  planOrder(swapOrder(sameChain), [{ kind: 'swap', chain: 'base', fromToken: 'USDC', toToken: 'ETH', provider: 'Aerodrome' }], { USDC: '1', ETH: '3200' });

describe('swapDestination', () => {
  it('delivers a same-chain swap without an address back into the managed wallet', () => {
    expect(swapDestination(sameChain, wallet, undefined)).toEqual({
      kind: 'wallet',
      walletId: 'wal_01M82JKS0653T6WKTARA9RFX7D',
      address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    });
  });

  it('delivers to the given address when there is one, on the same chain too', () => {
    expect(swapDestination(sameChain, wallet, CHECKSUMMED)).toEqual({ kind: 'address', address: CHECKSUMMED });
    expect(swapDestination(crossChain, wallet, CHECKSUMMED)).toEqual({ kind: 'address', address: CHECKSUMMED });
  });

  it('requires a destination address across chains', () => {
    let error: unknown;
    try {
      swapDestination(crossChain, wallet, undefined);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', field: 'destinationAddress' });
    expect((error as AppError).message).toMatch(/^destinationAddress: is required for a cross-chain swap/);
    expect((error as AppError).message).toContain('bsc');
  });

  it('refuses an address with a wrong EIP-55 checksum, and anything that is not an EVM address', () => {
    for (const address of ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae', 'not-an-address', '']) {
      expect(() => swapDestination(crossChain, wallet, address)).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', field: 'destinationAddress' }));
    }
  });

  it('accepts an all-lowercase address as given', () => {
    expect(swapDestination(crossChain, wallet, '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toEqual({
      kind: 'address',
      address: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed',
    });
  });
});

describe('swapOrder', () => {
  it("takes the order from the quote, with the route's estimated time", () => {
    expect(swapOrder(crossChain)).toEqual(crossChainOrder({ quoteId: 'qt_01M82JKS0653T6WKTARA9RFX7E' }));
  });

  it("plans a same-chain swap as one leg delivering the quote's toAmount from the amount net of fees", () => {
    expect(sameChainLegs()).toEqual([expect.objectContaining({ amountIn: '99.5', amountOut: '0.03109375', minimumOut: '0.0307828125' })]);
  });
});

describe('SWAP_KIND: the swap as the swap-transfer service shows it at each version of its stream', () => {
  const initiated = initiatedRoute('swap', {
    order: swapOrder(sameChain),
    legs: sameChainLegs(),
    destination: swapDestination(sameChain, wallet, undefined),
    reference: null,
  });
  const stream = 'swap-txn_01M82JKS0653T6WKTARA9RFX7D';
  const envelopes = [
    { streamId: stream, streamVersion: 1, type: 'swap.initiated', data: initiated },
    { streamId: stream, streamVersion: 2, type: 'swap.funds_held', data: { at } },
    { streamId: stream, streamVersion: 3, type: 'swap.leg_completed', data: { index: 0, amountOut: '0.0311', transactionHash: '0xleg0', at } },
    { streamId: stream, streamVersion: 4, type: 'swap.completed', data: { toAmount: '0.0311', at } },
  ];

  it('is the swap kind, folding with the route decider from its initial state', () => {
    expect(SWAP_KIND.type).toBe('swap');
    expect(SWAP_KIND.initialState).toMatchObject({ status: 'pending' });
    expect(ROUTE_KINDS.map((kind) => kind.type)).toEqual(['swap', 'transfer']);
  });

  it('shows the transaction as it was at each version', () => {
    expect(viewAtVersion(ROUTE_KINDS, envelopes, 1)).toMatchObject({
      type: 'swap',
      status: 'pending',
      walletId: wallet.walletId,
      destinationAddress: wallet.address,
      transactionHash: undefined,
    });
    expect(viewAtVersion(ROUTE_KINDS, envelopes, 3)).toMatchObject({
      status: 'pending',
      transactionHash: '0xleg0',
      route: { steps: [{ status: 'completed', amountOut: '0.0311' }] },
    });
    expect(viewAtVersion(ROUTE_KINDS, envelopes, 4)).toMatchObject({ status: 'completed', transactionHash: '0xleg0', swap: { toAmount: '0.0311' } });
  });

  it("folds only its own kind's events", () => {
    expect(viewAtVersion([SWAP_KIND], [{ streamVersion: 1, type: 'transfer.initiated', data: {} }], 1)).toBeUndefined();
    expect(viewAtVersion(ROUTE_KINDS, [{ streamVersion: 1, type: 'offramp.initiated', data: {} }], 1)).toBeUndefined();
  });
});
