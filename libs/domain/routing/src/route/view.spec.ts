import { AT as created, foldInitiated, initiatedRoute } from './fixtures.spec-helper';
import { isInitiated } from '@ramp/transactions';
import { evolveRoute, initialRouteState, type RouteEvent, type RouteKind, type RouteState } from './route';
import { routeSteps, routeView } from './view';

const later = '2026-11-22T10:03:00.000Z';

const fold = (events: RouteEvent[]): RouteState => events.reduce(evolveRoute, initialRouteState);

function events(kind: RouteKind) {
  const ev = (name: string, data: object, at = later): RouteEvent => ({ type: `${kind}.${name}`, data: { at, ...data } }) as RouteEvent;
  return {
    initiated: ev('initiated', initiatedRoute(kind), created),
    held: ev('funds_held', {}),
    leg: (index: number, amountOut: string) => ev('leg_completed', { index, amountOut, transactionHash: `0xleg${index}` }),
    failing: (errorMessage: string, failedLeg: number | null) => ev('failing', { errorMessage, failedLeg }),
    reversed: (index: number) => ev('leg_reversed', { index, transactionHash: `0xback${index}` }),
    released: ev('funds_released', {}),
    completed: (toAmount: string) => ev('completed', { toAmount }),
    failed: (errorMessage: string) => ev('failed', { errorMessage }),
  };
}

const statuses = (state: RouteState) => {
  if (!isInitiated(state)) throw new Error('not initiated');
  return routeSteps(state).map((step) => step.status);
};

describe('routeView of a swap', () => {
  const e = events('swap');

  it('shows the source side, the fees, the swap object and the planned steps while pending', () => {
    const view = routeView(fold([e.initiated]));
    expect(view).toEqual({
      id: 'txn_01M82JKS0653T6WKTARA9RFX7D',
      type: 'swap',
      status: 'pending',
      chain: 'base',
      amount: '1000',
      tokenSymbol: 'USDC',
      transactionHash: undefined,
      reference: 'order-1',
      walletId: 'wal_01M82JKS0653T6WKTARA9RFX7D',
      fees: { platformFee: '5', providerFee: '2', totalFee: '7', bridgeFee: '2', platformFeeFiat: '7500.00' },
      swap: {
        fromToken: 'USDC',
        toToken: 'BNB',
        fromAmount: '1000',
        toAmount: '1.527692307692307692',
        fromChain: 'base',
        toChain: 'bsc',
        minimumToAmount: '1.512415384615384615',
        slippage: 1,
      },
      route: {
        steps: [
          {
            step: 1,
            kind: 'swap',
            provider: 'Aerodrome',
            fromChain: 'base',
            toChain: 'base',
            fromToken: 'USDC',
            toToken: 'ETH',
            amountIn: '993',
            amountOut: '0.3103125',
            status: 'pending',
            transactionHash: undefined,
            settlement: 'simulated',
          },
          {
            step: 2,
            kind: 'bridge',
            provider: 'Across',
            fromChain: 'base',
            toChain: 'bsc',
            fromToken: 'ETH',
            toToken: 'ETH',
            amountIn: '0.3103125',
            amountOut: '0.3103125',
            status: 'pending',
            transactionHash: undefined,
            settlement: 'simulated',
          },
          {
            step: 3,
            kind: 'swap',
            provider: 'PancakeSwap',
            fromChain: 'bsc',
            toChain: 'bsc',
            fromToken: 'ETH',
            toToken: 'BNB',
            amountIn: '0.3103125',
            amountOut: '1.527692307692307692',
            status: 'pending',
            transactionHash: undefined,
            settlement: 'simulated',
          },
        ],
      },
      destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      createdAt: created,
      updatedAt: created,
    });
    expect(view).not.toHaveProperty('transfer');
    expect(view).not.toHaveProperty('errorMessage');
  });

  it("shows what each leg actually gave, the next leg's input scaled to it, and the last leg's hash", () => {
    const view = routeView(fold([e.initiated, e.held, e.leg(0, '0.3'), e.leg(1, '0.3')]));
    expect(view.updatedAt).toBe(later);
    expect(view.transactionHash).toBe('0xleg1');
    expect(view.route!.steps.map(({ status, transactionHash, amountIn, amountOut }) => ({ status, transactionHash, amountIn, amountOut }))).toEqual([
      { status: 'completed', transactionHash: '0xleg0', amountIn: '993', amountOut: '0.3' },
      { status: 'completed', transactionHash: '0xleg1', amountIn: '0.3', amountOut: '0.3' },
      // 1.527692307692307692 * 0.3 / 0.3103125 = 1.4769230769230769227..., cut down (not rounded) to 18 decimals
      { status: 'pending', transactionHash: undefined, amountIn: '0.3', amountOut: '1.476923076923076922' },
    ]);
  });

  it("shows the UserOperation of a leg that ran from a wallet's smart account beside its bundle's hash, and none on the others", () => {
    const fromAccount: RouteEvent = {
      type: 'swap.leg_completed',
      data: { index: 0, amountOut: '0.3', transactionHash: '0xbundle0', userOperationHash: '0xoperation0', at: later },
    };
    const steps = routeView(fold([e.initiated, e.held, fromAccount, e.leg(1, '0.3')])).route!.steps;
    expect(steps[0]).toMatchObject({ status: 'completed', transactionHash: '0xbundle0', userOperationHash: '0xoperation0' });
    expect(steps[1]).not.toHaveProperty('userOperationHash');
    expect(steps[2]).not.toHaveProperty('userOperationHash');
  });

  it('shows the delivered toAmount once completed', () => {
    const view = routeView(fold([e.initiated, e.held, e.leg(0, '0.3103125'), e.leg(1, '0.3103125'), e.leg(2, '1.53'), e.completed('1.53')]));
    expect(view).toMatchObject({ status: 'completed', transactionHash: '0xleg2', swap: { toAmount: '1.53', minimumToAmount: '1.512415384615384615' } });
    expect(statuses(fold([e.initiated, e.held, e.leg(0, '0.3103125'), e.leg(1, '0.3103125'), e.leg(2, '1.53')]))).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    expect(view).not.toHaveProperty('errorMessage');
  });

  it('marks the failed leg, skips the ones after it and shows reversals with their hashes', () => {
    const message = 'The Across bridge of ETH from base to bsc failed: no liquidity';
    const failing = [e.initiated, e.held, e.leg(0, '0.3103125'), e.failing(message, 1)];
    expect(statuses(fold(failing))).toEqual(['completed', 'failed', 'skipped']);
    expect(routeView(fold(failing))).not.toHaveProperty('errorMessage');
    expect(routeView(fold(failing)).status).toBe('pending');
    const unwound = foldInitiated([...failing, e.reversed(0), e.released, e.failed(message)]);
    expect(routeSteps(unwound)[0]).toMatchObject({ status: 'reversed', transactionHash: '0xleg0', reversalHash: '0xback0' });
    expect(routeSteps(unwound)[1]).not.toHaveProperty('reversalHash');
    expect(statuses(unwound)).toEqual(['reversed', 'failed', 'skipped']);
    expect(routeView(unwound)).toMatchObject({ status: 'failed', errorMessage: message, transactionHash: '0xback0' });
  });

  it('shows the latest reversal as the transaction hash while unwinding, last leg first', () => {
    const failing = [e.initiated, e.held, e.leg(0, '0.3103125'), e.leg(1, '0.3103125'), e.failing('The swap failed', 2)];
    expect(routeView(fold(failing)).transactionHash).toBe('0xleg1');
    expect(routeView(fold([...failing, e.reversed(1)])).transactionHash).toBe('0xback1');
    expect(routeView(fold([...failing, e.reversed(1), e.reversed(0)])).transactionHash).toBe('0xback0');
    expect(statuses(fold([...failing, e.reversed(1)]))).toEqual(['completed', 'reversed', 'failed']);
  });

  it('skips every leg when the hold was refused', () => {
    const state = fold([e.initiated, e.failing('Insufficient balance', null), e.failed('Insufficient balance')]);
    expect(statuses(state)).toEqual(['skipped', 'skipped', 'skipped']);
    expect(routeView(state)).toMatchObject({ status: 'failed', errorMessage: 'Insufficient balance', transactionHash: undefined });
  });

  it('keeps a leg that ran below its minimum as completed until it is reversed', () => {
    const state = fold([e.initiated, e.held, e.leg(0, '0.3'), e.failing('Slippage exceeded: ...', 0)]);
    expect(statuses(state)).toEqual(['completed', 'skipped', 'skipped']);
  });

  it('refuses to show a transaction that does not exist', () => {
    expect(() => routeView(initialRouteState)).toThrow();
  });
});

describe('routeView of a transfer', () => {
  const e = events('transfer');

  it('shows the transfer object with the destination, and no swap object', () => {
    const view = routeView(fold([e.initiated, e.held]));
    expect(view).toMatchObject({
      type: 'transfer',
      status: 'pending',
      chain: 'base',
      amount: '1000',
      tokenSymbol: 'USDC',
      fees: { platformFee: '5', providerFee: '2', totalFee: '7', bridgeFee: '2', platformFeeFiat: '7500.00' },
      transfer: {
        fromChain: 'base',
        toChain: 'bsc',
        destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
        fromToken: 'USDC',
        toToken: 'BNB',
        fromAmount: '1000',
        toAmount: '1.527692307692307692',
      },
      destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    });
    expect(view).not.toHaveProperty('swap');
    expect(view.route!.steps).toHaveLength(3);
  });

  it('shows the delivered amount once completed and the error once failed', () => {
    const done = routeView(fold([e.initiated, e.held, e.leg(0, '0.3103125'), e.leg(1, '0.3103125'), e.leg(2, '1.52'), e.completed('1.52')]));
    expect(done.transfer).toMatchObject({ toAmount: '1.52' });
    const failed = routeView(fold([e.initiated, e.failing('Insufficient balance', null), e.failed('Insufficient balance')]));
    expect(failed).toMatchObject({ type: 'transfer', status: 'failed', errorMessage: 'Insufficient balance' });
  });
});
