import { AT as at, foldInitiated, initiatedRoute } from './fixtures.spec-helper';
import {
  decideRoute,
  describeLeg,
  destinationOf,
  evolveRoute,
  initialRouteState,
  legOrder,
  nextRouteStep,
  type RouteCommand,
  type RouteEvent,
  type RouteState,
} from './route';
import { routeSteps } from './view';

const fold = (events: RouteEvent[]): RouteState => events.reduce(evolveRoute, initialRouteState);
const ev = (type: string, data: object): RouteEvent => ({ type, data: { at, ...data } }) as RouteEvent;

/** given events, when a command, then these events (or this error), and the process's next step. */
function given(events: RouteEvent[]) {
  return {
    when(command: RouteCommand) {
      const state = fold(events);
      return {
        then(expected: Partial<RouteEvent>[], nextStep?: string) {
          const decided = decideRoute(command, state);
          expect(decided).toEqual(expected.map((event) => expect.objectContaining(event)));
          if (nextStep) expect(nextRouteStep(decided.reduce(evolveRoute, state)).kind).toBe(nextStep);
          return decided;
        },
        thenRefused(code: string) {
          expect(() => decideRoute(command, state)).toThrow(expect.objectContaining({ code }));
        },
      };
    },
  };
}

const SLIPPAGE_0 =
  'Slippage exceeded: the USDC to ETH swap on base (Aerodrome) would give 0.3 ETH, less than the minimum of 0.307209375 ETH that the 1% slippage tolerance allows';
const BRIDGE_DOWN = 'The Across bridge of ETH from base to bsc failed: no liquidity';

describe.each(['swap', 'transfer'] as const)('the %s decider', (kind) => {
  const initiated = ev(`${kind}.initiated`, initiatedRoute(kind));
  const held = ev(`${kind}.funds_held`, {});
  const leg = (index: number, amountOut: string) => ev(`${kind}.leg_completed`, { index, amountOut, transactionHash: `0xleg${index}` });
  const ran = [leg(0, '0.3103125'), leg(1, '0.3103125'), leg(2, '1.53')];
  const failing = (errorMessage: string, failedLeg: number | null, failureReason = 'BRIDGE_FAILED') =>
    ev(`${kind}.failing`, { errorMessage, failureReason, failedLeg });
  const reversed = (index: number) => ev(`${kind}.leg_reversed`, { index, transactionHash: `0xback${index}` });

  it("initiates once, then holds the wallet's tokens; initiating again (a retried request) records nothing", () => {
    given([])
      .when({ type: 'initiate', data: initiatedRoute(kind) })
      .then([{ type: `${kind}.initiated`, data: initiatedRoute(kind) }], 'placeHold');
    given([initiated])
      .when({ type: 'initiate', data: initiatedRoute(kind) })
      .then([]);
  });

  it('runs each leg in order after the hold, settles, then completes with what the last leg gave', () => {
    given([initiated])
      .when({ type: 'recordFundsHeld', at })
      .then([{ type: `${kind}.funds_held`, data: { at } }], 'executeLeg');
    expect(nextRouteStep(fold([initiated, held]))).toEqual({ kind: 'executeLeg', index: 0 });
    given([initiated, held])
      .when({ type: 'recordLeg', index: 0, ok: true, amountOut: '0.3103125', transactionHash: '0xleg0', at })
      .then([{ type: `${kind}.leg_completed`, data: { index: 0, amountOut: '0.3103125', transactionHash: '0xleg0', at } }]);
    expect(nextRouteStep(fold([initiated, held, ran[0]!]))).toEqual({ kind: 'executeLeg', index: 1 });
    given([initiated, held, ran[0]!])
      .when({ type: 'recordLeg', index: 1, ok: true, amountOut: '0.3103125', transactionHash: '0xleg1', at })
      .then([{ type: `${kind}.leg_completed` }]);
    given([initiated, held, ran[0]!, ran[1]!])
      .when({ type: 'recordLeg', index: 2, ok: true, amountOut: '1.53', transactionHash: '0xleg2', at })
      .then([{ type: `${kind}.leg_completed` }], 'settle');
    given([initiated, held, ...ran])
      .when({ type: 'complete', at })
      .then([{ type: `${kind}.completed`, data: { toAmount: '1.53', at } }], 'none');
  });

  it('ignores commands for a step that is not the current one, so replays are harmless', () => {
    given([initiated, held]).when({ type: 'recordFundsHeld', at }).then([]);
    given([initiated, held, ran[0]!]).when({ type: 'recordLeg', index: 0, ok: true, amountOut: '0.3103125', transactionHash: '0xleg0', at }).then([]);
    given([initiated, held]).when({ type: 'recordLeg', index: 1, ok: true, amountOut: '0.3103125', transactionHash: '0xleg1', at }).then([]);
    given([initiated, held, ran[0]!]).when({ type: 'complete', at }).then([]);
    given([initiated, held]).when({ type: 'recordFundsReleased', at }).then([]);
    given([initiated, held, ran[0]!]).when({ type: 'recordReversal', index: 0, transactionHash: '0xback0', at }).then([]);
  });

  it('fails a swap leg that reverted for slippage, naming what it would give and the minimum', () => {
    const [event] = given([initiated, held])
      .when({ type: 'recordLeg', index: 0, ok: false, reason: 'execution reverted', wouldGive: '0.3', at })
      .then([{ type: `${kind}.failing`, data: { errorMessage: SLIPPAGE_0, failureReason: 'SLIPPAGE_EXCEEDED', failedLeg: 0, at } }], 'releaseHold');
    expect((event!.data as { errorMessage: string }).errorMessage).toMatch(/^Slippage exceeded/);
  });

  it('keeps the hash of a leg whose transaction reverted on chain, and the view shows it on the failed step', () => {
    const [event] = given([initiated, held])
      .when({
        type: 'recordLeg',
        index: 0,
        ok: false,
        reason: 'UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT',
        wouldGive: '0.3',
        transactionHash: '0xreverted',
        at,
      })
      .then(
        [{ type: `${kind}.failing`, data: { errorMessage: SLIPPAGE_0, failureReason: 'SLIPPAGE_EXCEEDED', failedLeg: 0, failedHash: '0xreverted', at } }],
        'releaseHold',
      );
    const steps = routeSteps(foldInitiated([initiated, held, event!]));
    expect(steps[0]).toMatchObject({ status: 'failed', transactionHash: '0xreverted' });
    expect(steps[1]).toMatchObject({ status: 'skipped' });
    expect(steps[1]).not.toHaveProperty('transactionHash');
    // Refused before it was sent: no hash to show.
    const [refused] = given([initiated, held])
      .when({ type: 'recordLeg', index: 0, ok: false, reason: 'refused', wouldGive: '0.3', at })
      .then([{ type: `${kind}.failing` }]);
    expect(refused!.data).not.toHaveProperty('failedHash');
    expect(routeSteps(foldInitiated([initiated, held, refused!]))[0]).not.toHaveProperty('transactionHash');
  });

  it('records a swap that gave less than its minimum anyway, then fails and reverses it', () => {
    given([initiated, held])
      .when({ type: 'recordLeg', index: 0, ok: true, amountOut: '0.3', transactionHash: '0xleg0', at })
      .then(
        [
          { type: `${kind}.leg_completed`, data: { index: 0, amountOut: '0.3', transactionHash: '0xleg0', at } },
          { type: `${kind}.failing`, data: { errorMessage: SLIPPAGE_0, failureReason: 'SLIPPAGE_EXCEEDED', failedLeg: 0, at } },
        ],
        'reverseLeg',
      );
    expect(nextRouteStep(fold([initiated, held, leg(0, '0.3'), failing(SLIPPAGE_0, 0)]))).toEqual({ kind: 'reverseLeg', index: 0 });
  });

  it("accepts a swap that gave exactly its minimum, and holds the last swap to the quote's minimum", () => {
    given([initiated, held])
      .when({ type: 'recordLeg', index: 0, ok: true, amountOut: '0.307209375', transactionHash: '0xleg0', at })
      .then([{ type: `${kind}.leg_completed` }], 'executeLeg');
    // The bridge carried less than planned: the last swap's minimum is still the quote's 1.512415384615384615.
    const before = [initiated, held, leg(0, '0.3'), leg(1, '0.3')];
    expect(legOrder(foldInitiated(before), 2)).toMatchObject({ amountIn: '0.3', minimumOut: '1.512415384615384615' });
    // Delivered into the managed wallet, a short last swap is unwound like any other failure...
    const toWallet = initiatedRoute(kind, {
      destination: { kind: 'wallet', walletId: 'wal_01M82JKS0653T6WKTARA9RFX7D', address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' },
    });
    const intoWallet = [ev(`${kind}.initiated`, toWallet), held, leg(0, '0.3'), leg(1, '0.3')];
    given(intoWallet)
      .when({ type: 'recordLeg', index: 2, ok: true, amountOut: '1.5', transactionHash: '0xleg2', at })
      .then(
        [
          { type: `${kind}.leg_completed` },
          {
            type: `${kind}.failing`,
            data: expect.objectContaining({
              failedLeg: 2,
              failureReason: 'SLIPPAGE_EXCEEDED',
              errorMessage: expect.stringContaining('less than the minimum of 1.512415384615384615 BNB'),
            }),
          },
        ],
        'reverseLeg',
      );
    // ...but paid to an outside address it cannot be taken back: the transaction settles for what was delivered.
    given(before)
      .when({ type: 'recordLeg', index: 2, ok: true, amountOut: '1.5', transactionHash: '0xleg2', at })
      .then([{ type: `${kind}.leg_completed` }], 'settle');
  });

  it('holds an intermediate bridge to what it should carry, and unwinds when it carries less', () => {
    given([initiated, held, ran[0]!])
      .when({ type: 'recordLeg', index: 1, ok: true, amountOut: '0.3', transactionHash: '0xleg1', at })
      .then(
        [
          { type: `${kind}.leg_completed` },
          {
            type: `${kind}.failing`,
            data: expect.objectContaining({
              failedLeg: 1,
              failureReason: 'BRIDGE_FAILED',
              errorMessage: 'The Across bridge of ETH from base to bsc would deliver 0.3 ETH, less than the 0.3103125 ETH quoted',
            }),
          },
        ],
        'reverseLeg',
      );
  });

  it('unwinds the source swap when the bridge fails, releases the hold, then fails with the same message', () => {
    given([initiated, held, ran[0]!])
      .when({ type: 'recordLeg', index: 1, ok: false, reason: 'no liquidity', at })
      .then([{ type: `${kind}.failing`, data: { errorMessage: BRIDGE_DOWN, failureReason: 'BRIDGE_FAILED', failedLeg: 1, at } }], 'reverseLeg');
    const unwinding = [initiated, held, ran[0]!, failing(BRIDGE_DOWN, 1)];
    expect(nextRouteStep(fold(unwinding))).toEqual({ kind: 'reverseLeg', index: 0 });
    given(unwinding).when({ type: 'fail', reason: 'x', failureReason: 'TRANSACTION_FAILED', at }).then([]);
    given(unwinding).when({ type: 'recordFundsReleased', at }).then([]);
    given(unwinding)
      .when({ type: 'recordReversal', index: 0, transactionHash: '0xback0', at })
      .then([{ type: `${kind}.leg_reversed`, data: { index: 0, transactionHash: '0xback0', at } }], 'releaseHold');
    given([...unwinding, reversed(0)])
      .when({ type: 'recordFundsReleased', at })
      .then([{ type: `${kind}.funds_released` }], 'fail');
    given([...unwinding, reversed(0), ev(`${kind}.funds_released`, {})])
      .when({ type: 'fail', reason: 'something else', failureReason: 'TRANSACTION_FAILED', at })
      .then([{ type: `${kind}.failed`, data: { errorMessage: BRIDGE_DOWN, failureReason: 'BRIDGE_FAILED', at } }], 'none');
  });

  it('reverses the legs that ran last first', () => {
    const unwinding = [initiated, held, ran[0]!, ran[1]!, failing('The PancakeSwap swap failed', 2)];
    expect(nextRouteStep(fold(unwinding))).toEqual({ kind: 'reverseLeg', index: 1 });
    given(unwinding).when({ type: 'recordReversal', index: 0, transactionHash: '0xback0', at }).then([]);
    given(unwinding)
      .when({ type: 'recordReversal', index: 1, transactionHash: '0xback1', at })
      .then([{ type: `${kind}.leg_reversed` }], 'reverseLeg');
    expect(nextRouteStep(fold([...unwinding, reversed(1)]))).toEqual({ kind: 'reverseLeg', index: 0 });
    given([...unwinding, reversed(1)])
      .when({ type: 'recordReversal', index: 0, transactionHash: '0xback0', at })
      .then([{ type: `${kind}.leg_reversed` }], 'releaseHold');
  });

  it('releases even a hold that was refused before failing, since another placement of it may still land', () => {
    given([initiated])
      .when({ type: 'fail', reason: 'Insufficient balance', failureReason: 'INSUFFICIENT_BALANCE', at })
      .then(
        [{ type: `${kind}.failing`, data: { errorMessage: 'Insufficient balance', failureReason: 'INSUFFICIENT_BALANCE', failedLeg: null, at } }],
        'releaseHold',
      );
    const refused = [initiated, failing('Insufficient balance', null, 'INSUFFICIENT_BALANCE')];
    given(refused).when({ type: 'fail', reason: 'again', failureReason: 'TRANSACTION_FAILED', at }).then([]);
    given(refused)
      .when({ type: 'recordFundsReleased', at })
      .then([{ type: `${kind}.funds_released` }], 'fail');
    given([...refused, ev(`${kind}.funds_released`, {})])
      .when({ type: 'fail', reason: 'again', failureReason: 'TRANSACTION_FAILED', at })
      .then([{ type: `${kind}.failed`, data: { errorMessage: 'Insufficient balance', failureReason: 'INSUFFICIENT_BALANCE', at } }], 'none');
  });

  it('unwinds what ran when told to fail mid-route', () => {
    given([initiated, held, ran[0]!])
      .when({ type: 'fail', reason: 'Router unavailable', failureReason: 'TRANSACTION_FAILED', at })
      .then(
        [{ type: `${kind}.failing`, data: { errorMessage: 'Router unavailable', failureReason: 'TRANSACTION_FAILED', failedLeg: null, at } }],
        'reverseLeg',
      );
  });

  it('cannot fail once every leg has run', () => {
    given([initiated, held, ...ran])
      .when({ type: 'fail', reason: 'x', failureReason: 'TRANSACTION_FAILED', at })
      .thenRefused('CONFLICT');
  });

  it('decides nothing for a finished transaction', () => {
    const completed = [initiated, held, ...ran, ev(`${kind}.completed`, { toAmount: '1.53' })];
    given(completed).when({ type: 'complete', at }).then([]);
    given(completed).when({ type: 'fail', reason: 'x', failureReason: 'TRANSACTION_FAILED', at }).then([]);
    given(completed)
      .when({ type: 'initiate', data: initiatedRoute(kind) })
      .then([]);
    const failed = [initiated, failing('Insufficient balance', null, 'INSUFFICIENT_BALANCE'), ev(`${kind}.failed`, { errorMessage: 'Insufficient balance' })];
    given(failed).when({ type: 'fail', reason: 'x', failureReason: 'TRANSACTION_FAILED', at }).then([]);
    given(failed).when({ type: 'recordFundsHeld', at }).then([]);
    expect(nextRouteStep(fold(failed))).toEqual({ kind: 'none' });
  });

  it('refuses commands for a transaction that does not exist', () => {
    given([]).when({ type: 'recordFundsHeld', at }).thenRefused('NOT_FOUND');
    given([]).when({ type: 'fail', reason: 'x', failureReason: 'TRANSACTION_FAILED', at }).thenRefused('NOT_FOUND');
    expect(nextRouteStep(initialRouteState)).toEqual({ kind: 'none' });
  });
});

describe('describeLeg', () => {
  it('names a swap by its tokens, chain and provider, and a bridge by its provider, token and chains', () => {
    const [swap, bridge] = initiatedRoute('swap').legs;
    expect(describeLeg(swap!)).toBe('the USDC to ETH swap on base (Aerodrome)');
    expect(describeLeg(bridge!)).toBe('the Across bridge of ETH from base to bsc');
  });
});

describe('destinationOf', () => {
  const wallet = { walletId: 'wal_01M82JKS0653T6WKTARA9RFX7D', chain: 'base', address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' };

  it('is the managed wallet for its own address on its own chain, in any letter case, so the ledger credits it', () => {
    expect(destinationOf(wallet.address.toLowerCase(), 'base', wallet)).toEqual({ kind: 'wallet', walletId: wallet.walletId, address: wallet.address });
  });

  it('is an outside address on another chain, or for any other address', () => {
    expect(destinationOf(wallet.address, 'bsc', wallet)).toEqual({ kind: 'address', address: wallet.address });
    expect(destinationOf('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'base', wallet)).toEqual({
      kind: 'address',
      address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    });
  });
});
