import type { OfframpQuote } from '@ramp/contracts';
import { isInitiated, type WithInitiation } from '@ramp/transactions';
import {
  decideOfframp,
  evolveOfframp,
  initialOfframpState,
  isRecordedDeposit,
  nextOfframpStep,
  offrampView,
  refundAddressOf,
  type OfframpCommand,
  type OfframpEvent,
  type OfframpState,
} from './index';

const at = '2026-11-22T10:00:00.000Z';
const quote = (tokenSymbol = 'USDC', cryptoAmount = '100'): OfframpQuote.Response => ({
  quoteId: 'qt_01M82JKS0653T6WKTARA9RFX7D',
  expiresAt: at,
  cryptoAmount,
  tokenSymbol,
  chain: 'base',
  fiatAmount: '149250.00',
  fiatCurrency: 'NGN',
  rate: '1492.5',
  fees: { providerFee: '199.25', platformFee: '20.00', swapFee: tokenSymbol === 'CNGN' ? '0.00' : '20.00', totalFee: '239.25' },
  payoutAmount: '149010.75',
  bankAccount: { bankName: 'Guaranty Trust Bank', bankCode: '058', accountNumber: '0123456789', accountName: 'ADA OBI' },
});

const initiated = (custodial: boolean, tokenSymbol = 'USDC'): OfframpEvent => ({
  type: 'offramp.initiated',
  data: {
    transactionId: 'txn_01M82JKS0653T6WKTARA9RFX7D',
    tenant: { organizationId: 'org_a', environment: 'test', keyId: 'key_a' },
    quote: quote(tokenSymbol),
    walletId: custodial ? 'wal_01M82JKS0653T6WKTARA9RFX7D' : null,
    sourceAddress: custodial ? null : '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    depositAddress: custodial ? null : '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    depositExpiresAt: custodial ? null : '2026-11-22T10:30:00.000Z',
    reference: 'order-1',
    callbackUrl: null,
    at,
  },
});

const fold = (events: OfframpEvent[]): OfframpState => events.reduce(evolveOfframp, initialOfframpState);
/** The state after events that begin with the initiation, as a job sees it. */
const foldInitiated = (events: OfframpEvent[]): WithInitiation<OfframpState> => {
  const state = fold(events);
  if (!isInitiated(state)) throw new Error('not initiated');
  return state;
};

/** given events, when a command, then these events (or this error), and the process's next step. */
function given(events: OfframpEvent[]) {
  return {
    when(command: OfframpCommand) {
      const state = fold(events);
      return {
        then(expected: Partial<OfframpEvent>[], nextStep?: string) {
          const decided = decideOfframp(command, state);
          expect(decided).toEqual(expected.map((event) => expect.objectContaining(event)));
          if (nextStep) expect(nextOfframpStep(decided.reduce(evolveOfframp, state)).kind).toBe(nextStep);
        },
        thenRefused(code: string) {
          expect(() => decideOfframp(command, state)).toThrow(expect.objectContaining({ code }));
        },
      };
    },
  };
}

const held: OfframpEvent = { type: 'offramp.funds_held', data: { at } };
const swapped: OfframpEvent = { type: 'offramp.swapped', data: { cngnAmount: '149250.00', transactionHash: '0xswap', at } };
const paid: OfframpEvent = { type: 'offramp.paid_out', data: { transactionHash: '0xsend', payoutReference: 'NIP-1', at } };

describe('off-ramp, custodial', () => {
  it("starts by holding the wallet's tokens", () => {
    given([])
      .when({ type: 'initiate', data: initiated(true).data as never })
      .then([{ type: 'offramp.initiated' }], 'placeHold');
  });

  it('initiating twice (a retried request) records it once', () => {
    given([initiated(true)])
      .when({ type: 'initiate', data: initiated(true).data as never })
      .then([]);
  });

  it('swaps to CNGN after the hold unless the token is CNGN, then pays out', () => {
    given([initiated(true)])
      .when({ type: 'recordFundsHeld', at })
      .then([{ type: 'offramp.funds_held' }], 'swapToCngn');
    given([initiated(true, 'CNGN')])
      .when({ type: 'recordFundsHeld', at })
      .then([{ type: 'offramp.funds_held' }], 'payout');
    given([initiated(true), held])
      .when({ type: 'recordSwap', ok: true, cngnAmount: '149250.00', transactionHash: '0xswap', at })
      .then([{ type: 'offramp.swapped' }], 'payout');
  });

  it('captures the hold after the payout, then completes', () => {
    given([initiated(true), held, swapped])
      .when({ type: 'recordPayout', ok: true, transactionHash: '0xsend', payoutReference: 'NIP-1', at })
      .then([{ type: 'offramp.paid_out' }], 'captureHold');
    given([initiated(true), held, swapped, paid])
      .when({ type: 'complete', at })
      .then([{ type: 'offramp.completed' }], 'none');
  });

  it('releases the hold when the swap fails, and only then fails with the reason', () => {
    given([initiated(true), held])
      .when({ type: 'recordSwap', ok: false, reason: 'slippage', at })
      .then([{ type: 'offramp.failing' }], 'releaseHold');
    const failing: OfframpEvent = { type: 'offramp.failing', data: { errorMessage: 'The swap to CNGN failed: slippage', failureReason: 'SWAP_FAILED', at } };
    given([initiated(true), held, failing])
      .when({ type: 'fail', reason: 'x', failureReason: 'TRANSACTION_FAILED', at })
      .then([]);
    given([initiated(true), held, failing])
      .when({ type: 'recordFundsReleased', at })
      .then([{ type: 'offramp.funds_released' }], 'fail');
    given([initiated(true), held, failing, { type: 'offramp.funds_released', data: { at } }])
      .when({ type: 'fail', reason: 'x', failureReason: 'TRANSACTION_FAILED', at })
      .then([{ type: 'offramp.failed', data: { errorMessage: 'The swap to CNGN failed: slippage', failureReason: 'SWAP_FAILED', at } }], 'none');
  });

  it('releases the hold even when its placement was refused, so that a placement still in flight takes nothing, then fails', () => {
    given([initiated(true)])
      .when({ type: 'fail', reason: 'Insufficient balance', failureReason: 'INSUFFICIENT_BALANCE', at })
      .then([{ type: 'offramp.failing' }], 'releaseHold');
    const refused: OfframpEvent = { type: 'offramp.failing', data: { errorMessage: 'Insufficient balance', failureReason: 'INSUFFICIENT_BALANCE', at } };
    given([initiated(true), refused])
      .when({ type: 'recordFundsReleased', at })
      .then([{ type: 'offramp.funds_released' }], 'fail');
    given([initiated(true), refused, { type: 'offramp.funds_released', data: { at } }])
      .when({ type: 'fail', reason: 'again', failureReason: 'TRANSACTION_FAILED', at })
      .then([{ type: 'offramp.failed', data: { errorMessage: 'Insufficient balance', failureReason: 'INSUFFICIENT_BALANCE', at } }], 'none');
  });

  it('releases the hold when the payout is rejected', () => {
    given([initiated(true), held, swapped])
      .when({ type: 'recordPayout', ok: false, reason: 'account closed', at })
      .then([{ type: 'offramp.failing' }], 'releaseHold');
  });

  it('cannot fail once the NGN is paid out, and ignores late duplicates of finished steps', () => {
    given([initiated(true), held, swapped, paid])
      .when({ type: 'fail', reason: 'x', failureReason: 'TRANSACTION_FAILED', at })
      .thenRefused('CONFLICT');
    given([initiated(true), held, swapped])
      .when({ type: 'recordSwap', ok: true, cngnAmount: '1', transactionHash: '0x', at })
      .then([]);
    given([initiated(true), held, swapped, paid, { type: 'offramp.completed', data: { at } }])
      .when({ type: 'recordPayout', ok: false, reason: 'x', at })
      .then([]);
  });

  it('refuses commands for a transaction that does not exist', () => {
    given([]).when({ type: 'recordFundsHeld', at }).thenRefused('NOT_FOUND');
  });
});

describe('off-ramp, non-custodial', () => {
  it('waits for the deposit until the address expires', () => {
    expect(nextOfframpStep(fold([initiated(false)]))).toEqual({ kind: 'awaitDeposit', until: '2026-11-22T10:30:00.000Z' });
  });

  it('continues as custodial once the quoted amount arrives, and completes without a hold to capture', () => {
    given([initiated(false)])
      .when({ type: 'recordDeposit', amount: '100.0', transactionHash: '0xdep', at })
      .then([{ type: 'offramp.deposit_received' }], 'swapToCngn');
    const deposit: OfframpEvent = { type: 'offramp.deposit_received', data: { amount: '100', transactionHash: '0xdep', at } };
    given([initiated(false), deposit, swapped])
      .when({ type: 'recordPayout', ok: true, transactionHash: '0xsend', payoutReference: 'NIP-1', at })
      .then([{ type: 'offramp.paid_out' }], 'complete');
  });

  it('returns a deposit of the wrong amount to its sender, then fails', () => {
    given([initiated(false)])
      .when({ type: 'recordDeposit', amount: '99', transactionHash: '0xdep', at })
      .then([{ type: 'offramp.deposit_received' }, { type: 'offramp.failing' }], 'refundDeposit');
  });

  it('takes no deposit of another token, whatever its amount: the off-ramp goes on waiting for its own', () => {
    const other = { type: 'recordDeposit', amount: '100', transactionHash: '0xcngn', tokenSymbol: 'CNGN', depositId: 'test:base:0xcngn:0', at } as const;
    given([initiated(false)])
      .when(other)
      .then([]);
    expect(nextOfframpStep(fold([initiated(false)])).kind).toBe('awaitDeposit');
    given([initiated(false)])
      .when({ type: 'recordDeposit', amount: '100', transactionHash: '0xusdc', tokenSymbol: 'USDC', depositId: 'test:base:0xusdc:3', at })
      .then(
        [{ type: 'offramp.deposit_received', data: { amount: '100', transactionHash: '0xusdc', tokenSymbol: 'USDC', depositId: 'test:base:0xusdc:3', at } }],
        'swapToCngn',
      );
    const expired: OfframpEvent[] = [
      initiated(false),
      { type: 'offramp.failing', data: { errorMessage: 'No deposit was received before the deposit address expired', at } },
      { type: 'offramp.failed', data: { errorMessage: 'No deposit was received before the deposit address expired', at } },
    ];
    given(expired).when(other).then([]);
  });

  describe('a deposit a reorganisation removed', () => {
    const received: OfframpEvent = {
      type: 'offramp.deposit_received',
      data: { amount: '100', transactionHash: '0xdep', tokenSymbol: 'USDC', depositId: 'test:base:0xdep:1', at },
    };
    const reversal = { type: 'recordDepositReversed', depositId: 'test:base:0xdep:1', transactionHash: '0xdep', credit: 0, refunded: false, at } as const;
    const back = {
      type: 'recordDeposit',
      amount: '100',
      transactionHash: '0xdep',
      tokenSymbol: 'USDC',
      depositId: 'test:base:0xdep:1',
      credit: 1,
      at,
    } as const;
    const movement = { depositId: 'test:base:0xdep:1', credit: 0, environment: 'test' as const, chain: 'base', tokenSymbol: 'USDC', amount: '100' };

    it('before the payout: fails the off-ramp with DEPOSIT_REVERSED and sends nothing back (it never arrived)', () => {
      given([initiated(false), received, swapped])
        .when(reversal)
        .then(
          [
            { type: 'offramp.deposit_reversed', data: { ...movement, afterPayout: false, refunded: false, at } },
            { type: 'offramp.failing', data: expect.objectContaining({ failureReason: 'DEPOSIT_REVERSED' }) },
          ],
          'fail',
        );
    });

    it('after the payout: the off-ramp stays completed, flagged with the loss, and the deposit back on chain recovers it', () => {
      const done: OfframpEvent[] = [initiated(false), received, swapped, paid, { type: 'offramp.completed', data: { at } }];
      given(done)
        .when(reversal)
        .then([{ type: 'offramp.deposit_reversed', data: { ...movement, afterPayout: true, refunded: false, at } }], 'none');
      const flagged = [...done, { type: 'offramp.deposit_reversed', data: { ...movement, afterPayout: true, refunded: false, at } } as OfframpEvent];
      expect(fold(flagged).status).toBe('completed');
      given(flagged).when(reversal).then([]);
      given(flagged)
        .when(back)
        .then([{ type: 'offramp.deposit_restored', data: { ...movement, credit: 1, at } }], 'none');
    });

    it('a failed off-ramp whose deposit was reversed before its refund sends nothing; back on chain, it is refunded like a late deposit', () => {
      const failing: OfframpEvent[] = [
        initiated(false),
        received,
        { type: 'offramp.failing', data: { errorMessage: 'swap failed', failureReason: 'SWAP_FAILED', at } },
      ];
      expect(nextOfframpStep(fold(failing)).kind).toBe('refundDeposit');
      given(failing)
        .when(reversal)
        .then([{ type: 'offramp.deposit_reversed', data: { ...movement, afterPayout: false, refunded: false, at } }], 'fail');
      const reversed = [...failing, { type: 'offramp.deposit_reversed', data: { ...movement, afterPayout: false, refunded: false, at } } as OfframpEvent];
      const failed = [...reversed, { type: 'offramp.failed', data: { errorMessage: 'swap failed', failureReason: 'SWAP_FAILED', at } } as OfframpEvent];
      expect(nextOfframpStep(fold(failed)).kind).toBe('none');
      given(failed)
        .when(back)
        .then([{ type: 'offramp.deposit_received' }], 'refundDeposit');
    });

    it('one refunded before its reversal: the refund was the loss (booked by the ledger), and nothing more is sent when it comes back', () => {
      const refunded: OfframpEvent[] = [
        initiated(false),
        received,
        { type: 'offramp.failing', data: { errorMessage: 'mismatch', failureReason: 'DEPOSIT_AMOUNT_MISMATCH', at } },
        { type: 'offramp.deposit_refunded', data: { transactionHash: '0xback', at } },
        { type: 'offramp.failed', data: { errorMessage: 'mismatch', failureReason: 'DEPOSIT_AMOUNT_MISMATCH', at } },
      ];
      given(refunded)
        .when({ ...reversal, refunded: true })
        .then([{ type: 'offramp.deposit_reversed', data: { ...movement, afterPayout: false, refunded: true, at } }], 'none');
      const reversed = [...refunded, { type: 'offramp.deposit_reversed', data: { ...movement, afterPayout: false, refunded: true, at } } as OfframpEvent];
      given(reversed).when(back).then([]);
    });

    it('another deposit than its own, reversed, changes nothing here', () => {
      given([initiated(false), received])
        .when({ ...reversal, depositId: 'test:base:0xother:0', transactionHash: '0xother' })
        .then([]);
      given([initiated(false)])
        .when(reversal)
        .then([]);
    });
  });

  it('knows its deposit by its id: another log of the same transaction is another deposit', () => {
    const state = fold([
      initiated(false),
      { type: 'offramp.deposit_received', data: { amount: '100', transactionHash: '0xdep', tokenSymbol: 'USDC', depositId: 'test:base:0xdep:1', at } },
    ]);
    expect(isRecordedDeposit(state, { depositId: 'test:base:0xdep:1', transactionHash: '0xdep' })).toBe(true);
    expect(isRecordedDeposit(state, { depositId: 'test:base:0xdep:2', transactionHash: '0xdep' })).toBe(false);
    // Recorded before deposits had ids: by its hash.
    const before = fold([initiated(false), { type: 'offramp.deposit_received', data: { amount: '100', transactionHash: '0xdep', at } }]);
    expect(isRecordedDeposit(before, { depositId: 'test:base:0xdep:1', transactionHash: '0xdep' })).toBe(true);
  });

  it('fails when no deposit came before expiry, and still returns one that comes later', () => {
    given([initiated(false)])
      .when({ type: 'expireDeposit', at })
      .then([{ type: 'offramp.failing' }], 'fail');
    const failed: OfframpEvent[] = [
      initiated(false),
      { type: 'offramp.failing', data: { errorMessage: 'No deposit was received before the deposit address expired', at } },
      { type: 'offramp.failed', data: { errorMessage: 'No deposit was received before the deposit address expired', at } },
    ];
    given(failed)
      .when({ type: 'recordDeposit', amount: '100', transactionHash: '0xlate', at })
      .then([{ type: 'offramp.deposit_received' }], 'refundDeposit');
    const late: OfframpEvent = { type: 'offramp.deposit_received', data: { amount: '100', transactionHash: '0xlate', at } };
    given([...failed, late])
      .when({ type: 'recordDepositRefunded', transactionHash: '0xback', at })
      .then([{ type: 'offramp.deposit_refunded' }], 'none');
  });

  it("refunds to the deposit's sender on chain, or to the declared source address when it shows none (a mint, a simulated deposit)", () => {
    const sender = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const events = decideOfframp({ type: 'recordDeposit', amount: '99', transactionHash: '0xdep', from: sender, at }, fold([initiated(false)]));
    expect(events[0]).toEqual({ type: 'offramp.deposit_received', data: { amount: '99', transactionHash: '0xdep', from: sender, at } });
    expect(refundAddressOf(foldInitiated([initiated(false), ...events]))).toBe(sender);
    const minted = decideOfframp(
      { type: 'recordDeposit', amount: '99', transactionHash: '0xdep', from: '0x0000000000000000000000000000000000000000', at },
      fold([initiated(false)]),
    );
    expect(refundAddressOf(foldInitiated([initiated(false), ...minted]))).toBe('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    const simulated = decideOfframp({ type: 'recordDeposit', amount: '99', transactionHash: '0xdep', at }, fold([initiated(false)]));
    expect(simulated[0]!.data).not.toHaveProperty('from');
    expect(refundAddressOf(foldInitiated([initiated(false), ...simulated]))).toBe('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
  });

  it("lists its hashes in order, the on-chain deposit and refund apart from the sandbox rails' swap and settlement", () => {
    const sender = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const onchain = fold([
      initiated(false),
      { type: 'offramp.deposit_received', data: { amount: '99', transactionHash: '0xdep', from: sender, at } },
      { type: 'offramp.deposit_refunded', data: { transactionHash: '0xback', at } },
    ]);
    expect(offrampView(onchain).hashes).toEqual([
      { step: 'deposit', transactionHash: '0xdep', settlement: 'onchain' },
      { step: 'refund', transactionHash: '0xback', settlement: 'onchain' },
    ]);
    const custodial = fold([
      initiated(true),
      { type: 'offramp.funds_held', data: { at } },
      { type: 'offramp.swapped', data: { cngnAmount: '149250', transactionHash: '0xswap', at } },
      { type: 'offramp.paid_out', data: { transactionHash: '0xcngn', payoutReference: 'NIP1', at } },
    ]);
    expect(offrampView(custodial).hashes).toEqual([
      { step: 'swap', transactionHash: '0xswap', settlement: 'simulated' },
      { step: 'settlement', transactionHash: '0xcngn', settlement: 'simulated' },
    ]);
    expect(offrampView(fold([initiated(true)])).hashes).toBeUndefined();
  });

  it('marks the swap and the settlement on chain when the off-ramp runs on the pools (settlement onchain at initiation)', () => {
    const base = initiated(true) as Extract<OfframpEvent, { type: 'offramp.initiated' }>;
    const onchain = fold([
      { ...base, data: { ...base.data, settlement: 'onchain' } },
      { type: 'offramp.funds_held', data: { at } },
      { type: 'offramp.swapped', data: { cngnAmount: '149300.5', transactionHash: '0xswap', at } },
      { type: 'offramp.paid_out', data: { transactionHash: '0xcngn', payoutReference: 'NIP1', at } },
    ]);
    expect(offrampView(onchain).hashes).toEqual([
      { step: 'swap', transactionHash: '0xswap', settlement: 'onchain' },
      { step: 'settlement', transactionHash: '0xcngn', settlement: 'onchain' },
    ]);
    expect(offrampView(onchain).transactionHash).toBe('0xcngn');
  });

  it("shows the UserOperation beside the bundle's hash when the swap ran from a managed wallet's own account", () => {
    const base = initiated(true) as Extract<OfframpEvent, { type: 'offramp.initiated' }>;
    const state = fold([
      { ...base, data: { ...base.data, settlement: 'onchain' } },
      { type: 'offramp.funds_held', data: { at } },
    ]);
    const swapped = decideOfframp({ type: 'recordSwap', ok: true, cngnAmount: '149300.5', transactionHash: '0xbundle', userOperationHash: '0xop', at }, state);
    expect(swapped).toEqual([{ type: 'offramp.swapped', data: { cngnAmount: '149300.5', transactionHash: '0xbundle', userOperationHash: '0xop', at } }]);
    expect(offrampView(swapped.reduce(evolveOfframp, state)).hashes).toEqual([
      { step: 'swap', transactionHash: '0xbundle', settlement: 'onchain', userOperationHash: '0xop' },
    ]);
  });

  it('ignores an expiry after the deposit arrived', () => {
    const deposit: OfframpEvent = { type: 'offramp.deposit_received', data: { amount: '100', transactionHash: '0xdep', at } };
    given([initiated(false), deposit])
      .when({ type: 'expireDeposit', at })
      .then([]);
  });
});

describe('the Transaction view', () => {
  it('shows the spec fields, the ramp object and the error only when failed', () => {
    const pending = offrampView(fold([initiated(true), held]));
    expect(pending).toMatchObject({
      id: 'txn_01M82JKS0653T6WKTARA9RFX7D',
      type: 'offramp',
      status: 'pending',
      chain: 'base',
      amount: '100',
      tokenSymbol: 'USDC',
      reference: 'order-1',
      walletId: 'wal_01M82JKS0653T6WKTARA9RFX7D',
      fees: { platformFee: '20.00', providerFee: '199.25', totalFee: '239.25' },
      ramp: {
        fiatAmount: '149250.00',
        fiatCurrency: 'NGN',
        bankAccount: { bankName: 'Guaranty Trust Bank', accountNumber: '0123456789', accountName: 'ADA OBI' },
      },
    });
    expect(pending).not.toHaveProperty('errorMessage');
    const failed = offrampView(
      fold([initiated(true), { type: 'offramp.failing', data: { errorMessage: 'nope', at } }, { type: 'offramp.failed', data: { errorMessage: 'nope', at } }]),
    );
    expect(failed).toMatchObject({ status: 'failed', errorMessage: 'nope' });
    expect(offrampView(fold([initiated(true), held, swapped, paid])).transactionHash).toBe('0xsend');
  });
});

describe('integration events', () => {
  const { integrationEventOf } = jest.requireActual('@ramp/transactions') as typeof import('@ramp/transactions');

  it('stands for completed and failed only, with the webhook payload and the reason when failed', () => {
    const done = offrampView(fold([initiated(true), held, swapped, paid, { type: 'offramp.completed', data: { at } }]));
    expect(integrationEventOf(done, 'offramp.completed', 'evt-1', at)).toEqual({
      event: 'offramp.completed',
      timestamp: at,
      data: {
        transactionId: 'txn_01M82JKS0653T6WKTARA9RFX7D',
        reference: 'order-1',
        type: 'offramp',
        status: 'completed',
        amount: '100',
        tokenSymbol: 'USDC',
        chain: 'base',
        transactionHash: '0xsend',
        fiatAmount: '149250.00',
        fiatCurrency: 'NGN',
        payoutAmount: '149010.75',
        walletId: 'wal_01M82JKS0653T6WKTARA9RFX7D',
        metadata: { eventId: 'evt-1' },
      },
    });
    const failing: OfframpEvent = { type: 'offramp.failing', data: { errorMessage: 'The bank payout was rejected: no', failureReason: 'PAYOUT_REJECTED', at } };
    const failed = offrampView(
      fold([
        initiated(true),
        failing,
        { type: 'offramp.failed', data: { errorMessage: 'The bank payout was rejected: no', failureReason: 'PAYOUT_REJECTED', at } },
      ]),
    );
    expect(integrationEventOf(failed, 'offramp.failed', 'evt-2', at)?.data).toMatchObject({
      status: 'failed',
      errorMessage: 'The bank payout was rejected: no',
      failureReason: 'PAYOUT_REJECTED',
    });
    // Recorded before failure reasons existed: a failure all the same, with the generic reason.
    const legacy = offrampView(
      fold([initiated(true), { type: 'offramp.failing', data: { errorMessage: 'nope', at } }, { type: 'offramp.failed', data: { errorMessage: 'nope', at } }]),
    );
    expect(integrationEventOf(legacy, 'offramp.failed', 'evt-5', at)?.data).toMatchObject({ errorMessage: 'nope', failureReason: 'TRANSACTION_FAILED' });
    expect(integrationEventOf(done, 'offramp.paid_out', 'evt-3', at)).toBeUndefined();
    expect(integrationEventOf(done, 'onramp.completed', 'evt-4', at)).toBeUndefined();
  });
});

describe('off-ramp, a live payout attempt by attempt', () => {
  const base = [initiated(true), held, swapped];
  const ref = (n: number) => `txn_x-payout-${n}`;
  const attempt = (n: number, provider: string, state: string, sends = 1, extra: object = {}): OfframpEvent =>
    ({ type: 'offramp.payout_attempted', data: { attempt: n, provider, reference: ref(n), state, sends, ...extra, at } }) as OfframpEvent;
  const sending = (n: number, provider: string, sends = 1): OfframpEvent => attempt(n, provider, 'unknown', sends, { sending: true });
  const ask = (n: number, provider: string): OfframpCommand => ({ type: 'recordPayoutSending', attempt: n, provider, reference: ref(n), at });
  const answer = (n: number, provider: string, state: string, send = 1): OfframpCommand =>
    ({ type: 'recordPayoutAttempt', attempt: n, provider, reference: ref(n), state, send, at }) as OfframpCommand;

  it('records each ask before it is made, then what the partner says; paid pays the off-ramp out', () => {
    given(base)
      .when(ask(1, 'paystack'))
      .then(
        [
          {
            type: 'offramp.payout_attempted',
            data: expect.objectContaining({ attempt: 1, provider: 'paystack', reference: ref(1), state: 'unknown', sends: 1, sending: true }),
          },
        ],
        'payout',
      );
    expect(fold([...base, sending(1, 'paystack')]).payoutToSend).toBe(1);
    given([...base, sending(1, 'paystack')])
      .when(answer(1, 'paystack', 'pending'))
      .then([{ type: 'offramp.payout_attempted', data: expect.objectContaining({ state: 'pending', sends: 1 }) }], 'payout');
    // Any later event clears the ask's turn: only the job its record scheduled may make it.
    expect(fold([...base, sending(1, 'paystack'), attempt(1, 'paystack', 'pending')]).payoutToSend).toBeUndefined();
    given([...base, sending(1, 'paystack'), attempt(1, 'paystack', 'pending')])
      .when(answer(1, 'paystack', 'paid'))
      .then([{ type: 'offramp.payout_attempted' }, { type: 'offramp.paid_out', data: { payoutReference: ref(1), at } }], 'captureHold');
    // The same news again (an event and a verify) changes nothing.
    given([...base, sending(1, 'paystack'), attempt(1, 'paystack', 'pending')])
      .when(answer(1, 'paystack', 'pending'))
      .then([]);
  });

  it('counts every further ask of an unanswered attempt, and asks again only an unknown one', () => {
    given([...base, sending(1, 'paystack')])
      .when(ask(1, 'paystack'))
      .then([{ type: 'offramp.payout_attempted', data: expect.objectContaining({ sends: 2, sending: true }) }], 'payout');
    for (const state of ['pending', 'held', 'failed']) {
      expect(() => decideOfframp(ask(1, 'paystack'), fold([...base, sending(1, 'paystack'), attempt(1, 'paystack', state)]))).toThrow(
        `Payout attempt 1 is ${state}: it is not sent again`,
      );
    }
    expect(() => decideOfframp(answer(1, 'paystack', 'pending'), fold(base))).toThrow(/never recorded as sent/);
  });

  it('believes a refusal only in answer to the very first ask: after an unanswered one, it may be a duplicate of a paid transfer', () => {
    given([...base, sending(1, 'paystack')])
      .when(answer(1, 'paystack', 'rejected'))
      .then([{ type: 'offramp.payout_attempted', data: expect.objectContaining({ state: 'rejected' }) }], 'payout');
    expect(() => decideOfframp(answer(1, 'paystack', 'rejected', 2), fold([...base, sending(1, 'paystack', 2)]))).toThrow(/may have paid \(asked 2 times/);
    // A stale answer to the first ask, after a second was recorded (a replica whose lease ran out), is not believed either.
    expect(() => decideOfframp(answer(1, 'paystack', 'rejected', 1), fold([...base, sending(1, 'paystack', 2)]))).toThrow(/may have paid/);
    for (const state of ['pending', 'held', 'reversed']) {
      expect(() => decideOfframp(answer(1, 'paystack', 'rejected'), fold([...base, attempt(1, 'paystack', state)]))).toThrow(/may have paid/);
    }
  });

  it('starts a second attempt only once the first is known to have moved no Naira, and keeps each at its partner', () => {
    for (const state of ['unknown', 'pending', 'held', 'reversed']) {
      expect(() => decideOfframp(ask(2, 'flutterwave'), fold([...base, attempt(1, 'paystack', state)]))).toThrow(/may still pay/);
    }
    for (const state of ['failed', 'rejected']) {
      given([...base, attempt(1, 'paystack', state)])
        .when(ask(2, 'flutterwave'))
        .then([{ type: 'offramp.payout_attempted', data: expect.objectContaining({ attempt: 2, provider: 'flutterwave', sends: 1 }) }], 'payout');
    }
    expect(() => decideOfframp(ask(3, 'flutterwave'), fold([...base, attempt(1, 'paystack', 'failed')]))).toThrow(/not the next one/);
    // An attempt never moves to another partner or reference, whatever a crash or a breaker did meanwhile.
    expect(() => decideOfframp(ask(1, 'flutterwave'), fold([...base, sending(1, 'paystack')]))).toThrow(/went to paystack/);
    expect(() => decideOfframp(answer(1, 'flutterwave', 'pending'), fold([...base, sending(1, 'paystack')]))).toThrow(/went to paystack/);
  });

  it("never changes a partner's last word: a failed attempt is not paid later, a paid one not failed", () => {
    given([...base, attempt(1, 'paystack', 'failed')])
      .when(answer(1, 'paystack', 'paid'))
      .then([]);
    given([...base, attempt(1, 'paystack', 'failed'), sending(2, 'flutterwave')])
      .when(answer(1, 'paystack', 'pending'))
      .then([]);
  });

  it('cannot fail while an attempt may have paid; fails (PAYOUT_REJECTED) once every attempt is known to have paid nothing', () => {
    expect(() => decideOfframp({ type: 'recordPayout', ok: false, reason: 'x', at }, fold([...base, attempt(1, 'paystack', 'pending')]))).toThrow(
      /may have paid: the off-ramp cannot fail now/,
    );
    expect(() => decideOfframp({ type: 'fail', reason: 'operator', failureReason: 'TRANSACTION_FAILED', at }, fold([...base, sending(1, 'paystack')]))).toThrow(
      /can no longer fail/,
    );
    given([...base, attempt(1, 'paystack', 'failed'), attempt(2, 'flutterwave', 'rejected')])
      .when({ type: 'recordPayout', ok: false, reason: 'the account is closed', at })
      .then([{ type: 'offramp.failing', data: expect.objectContaining({ failureReason: 'PAYOUT_REJECTED' }) }], 'releaseHold');
    expect(() =>
      decideOfframp({ type: 'recordPayout', ok: true, transactionHash: '0x', payoutReference: 'NIP', at }, fold([...base, attempt(1, 'paystack', 'failed')])),
    ).toThrow(/through its attempts/);
  });

  it('holds a live off-ramp swapped on chain for an operator when every attempt failed, instead of giving back what it took', () => {
    const live = (custodial: boolean, settlement?: 'onchain'): OfframpEvent => {
      const event = initiated(custodial) as Extract<OfframpEvent, { type: 'offramp.initiated' }>;
      return { ...event, data: { ...event.data, tenant: { ...event.data.tenant, environment: 'live' }, ...(settlement && { settlement }) } };
    };
    const failed = [attempt(1, 'paystack', 'failed'), attempt(2, 'paystack', 'failed')];
    const rejected: OfframpCommand = { type: 'recordPayout', ok: false, reason: 'the account is closed', at };
    for (const custodial of [true, false]) {
      const funding: OfframpEvent = custodial
        ? held
        : { type: 'offramp.deposit_received', data: { amount: '100', transactionHash: '0xdep', from: '0xabc', tokenSymbol: 'USDC', at } };
      // Its USDC is CNGN in the hot wallet now: no release of the hold, no refund of the deposit, nothing more on its own.
      given([live(custodial, 'onchain'), funding, swapped, ...failed])
        .when(rejected)
        .then([{ type: 'offramp.payout_held', data: { errorMessage: 'The bank payout was rejected: the account is closed', at } }], 'none');
      const heldState = fold([live(custodial, 'onchain'), funding, swapped, ...failed, { type: 'offramp.payout_held', data: { errorMessage: 'x', at } }]);
      expect(heldState).toMatchObject({ status: 'pending', payoutHeld: { errorMessage: 'x', at } });
      expect(heldState.failing).toBeUndefined();
    }
    // Not swapped on chain (a test key's, or settled on the sandbox's rails): it fails and gives back as ever.
    given([live(false), { type: 'offramp.deposit_received', data: { amount: '100', transactionHash: '0xdep', at } }, swapped, ...failed])
      .when(rejected)
      .then([{ type: 'offramp.failing', data: expect.objectContaining({ failureReason: 'PAYOUT_REJECTED' }) }], 'refundDeposit');
    given([...base, ...failed])
      .when(rejected)
      .then([{ type: 'offramp.failing', data: expect.objectContaining({ failureReason: 'PAYOUT_REJECTED' }) }], 'releaseHold');
    // A live CNGN off-ramp (no swap) gives its CNGN back: it is the deposit's own token, still in the hot wallet.
    const cngn = initiated(true, 'CNGN') as Extract<OfframpEvent, { type: 'offramp.initiated' }>;
    given([{ ...cngn, data: { ...cngn.data, tenant: { ...cngn.data.tenant, environment: 'live' }, settlement: 'onchain' } }, held, ...failed])
      .when(rejected)
      .then([{ type: 'offramp.failing', data: expect.objectContaining({ failureReason: 'PAYOUT_REJECTED' }) }], 'releaseHold');
  });

  it("waits for an operator's approval before the first attempt, records who approved, and never after an attempt", () => {
    const require: OfframpCommand = { type: 'requireApproval', amountNgn: '149010.75', thresholdNgn: '100000', at };
    const approve: OfframpCommand = { type: 'approve', operator: 'Ada Obi', at };
    // Nothing waits yet: an approval is refused, so an operator never approves the wrong id silently.
    expect(() => decideOfframp(approve, fold(base))).toThrow(/does not wait for an approval/);
    given(base)
      .when(require)
      .then([{ type: 'offramp.approval_required', data: { amountNgn: '149010.75', thresholdNgn: '100000', at } }], 'payout');
    const waiting: OfframpEvent = { type: 'offramp.approval_required', data: { amountNgn: '149010.75', thresholdNgn: '100000', at } };
    given([...base, waiting])
      .when(require)
      .then([]);
    // While it waits, no partner is asked, whatever asks.
    expect(() => decideOfframp(ask(1, 'paystack'), fold([...base, waiting]))).toThrow(/waits for an operator's approval/);
    given([...base, waiting])
      .when(approve)
      .then([{ type: 'offramp.approved', data: { operator: 'Ada Obi', at } }], 'payout');
    const approved: OfframpEvent = { type: 'offramp.approved', data: { operator: 'Ada Obi', at } };
    expect(fold([...base, waiting, approved]).approval).toEqual({ required: waiting.data, approved: approved.data });
    given([...base, waiting, approved])
      .when(approve)
      .then([]);
    // An attempt already asked of a partner is followed to its end: nothing waits for an approval then.
    given([...base, sending(1, 'paystack')])
      .when(require)
      .then([]);
    expect(() => decideOfframp(approve, fold([...base, sending(1, 'paystack')]))).toThrow(/does not wait for an approval now/);
  });

  it('holds an off-ramp for compliance: nothing more runs, not even the refund of a deposit that failed; held once', () => {
    const hold: OfframpCommand = { type: 'holdForCompliance', address: '0xabc', role: 'deposit sender', reason: 'listed', at };
    const event = initiated(false) as Extract<OfframpEvent, { type: 'offramp.initiated' }>;
    const deposit: OfframpEvent = {
      type: 'offramp.deposit_received',
      data: { amount: '100', transactionHash: '0xdep', from: '0xabc', tokenSymbol: 'USDC', at },
    };
    given([event, deposit])
      .when(hold)
      .then([{ type: 'offramp.compliance_hold', data: { address: '0xabc', role: 'deposit sender', reason: 'listed', at } }], 'none');
    const heldState = fold([event, deposit, { type: 'offramp.compliance_hold', data: { address: '0xabc', role: 'deposit sender', reason: 'listed', at } }]);
    expect(heldState).toMatchObject({ status: 'pending', complianceHold: { address: '0xabc', role: 'deposit sender' } });
    expect(decideOfframp(hold, heldState)).toEqual([]);
    // Held, a swap asked anyway records nothing.
    expect(decideOfframp({ type: 'recordSwap', ok: true, cngnAmount: '149250', transactionHash: '0x5', at }, heldState)).toEqual([]);
    // A deposit of the wrong amount would be refunded to its sender: held instead, the refund never runs.
    const failing: OfframpEvent = { type: 'offramp.failing', data: { errorMessage: 'wrong amount', failureReason: 'DEPOSIT_AMOUNT_MISMATCH', at } };
    expect(nextOfframpStep(fold([event, deposit, failing]))).toEqual({ kind: 'refundDeposit' });
    given([event, deposit, failing])
      .when(hold)
      .then([{ type: 'offramp.compliance_hold' }], 'none');
  });

  it('gives back what an operator declines in review, or holds it once swapped live; never both decisions', () => {
    const waiting: OfframpEvent = { type: 'offramp.approval_required', data: { amountNgn: '149010.75', thresholdNgn: '100000', at } };
    const reject: OfframpCommand = { type: 'reject', operator: 'Ada Obi', reason: 'beneficiary under review', at };
    const rejected: OfframpEvent = { type: 'offramp.approval_rejected', data: { operator: 'Ada Obi', reason: 'beneficiary under review', at } };
    // Not waiting: refused, as an approval is.
    expect(() => decideOfframp(reject, fold(base))).toThrow(/does not wait for an approval/);
    // A test key's (or the sandbox rails'): fails DECLINED_IN_REVIEW, the hold released; the operator's reason stays on
    // its own event, never in what the integrator reads.
    given([...base, waiting])
      .when(reject)
      .then(
        [
          rejected,
          { type: 'offramp.failing', data: { errorMessage: expect.stringMatching(/^An operator declined/), failureReason: 'DECLINED_IN_REVIEW', at } },
        ],
        'releaseHold',
      );
    const failing = fold([...base, waiting, ...(decideOfframp(reject, fold([...base, waiting])) as OfframpEvent[])]);
    expect(failing.failing).not.toContain('beneficiary under review');
    expect(failing.approval?.rejected).toEqual({ operator: 'Ada Obi', reason: 'beneficiary under review', at });
    // Declined once: again is nothing new; an approval after it is refused (and a decline after an approval).
    given([...base, waiting, rejected])
      .when(reject)
      .then([]);
    expect(() => decideOfframp({ type: 'approve', operator: 'Someone Else', at }, fold([...base, waiting, rejected]))).toThrow();
    const approved: OfframpEvent = { type: 'offramp.approved', data: { operator: 'Ada Obi', at } };
    expect(() => decideOfframp(reject, fold([...base, waiting, approved]))).toThrow(/approved the transaction already/);
    expect(() => decideOfframp({ ...reject, reason: ' ' }, fold([...base, waiting]))).toThrow(/reason/);
    // Swapped on a live chain: its tokens are CNGN in the hot wallet now, so it is held for an operator, not given back.
    const event = initiated(false) as Extract<OfframpEvent, { type: 'offramp.initiated' }>;
    const live: OfframpEvent = { ...event, data: { ...event.data, tenant: { ...event.data.tenant, environment: 'live' }, settlement: 'onchain' } };
    const deposit: OfframpEvent = {
      type: 'offramp.deposit_received',
      data: { amount: '100', transactionHash: '0xdep', from: '0xabc', tokenSymbol: 'USDC', at },
    };
    given([live, deposit, swapped, waiting])
      .when(reject)
      .then([rejected, { type: 'offramp.payout_held', data: { errorMessage: 'Declined in review by Ada Obi: beneficiary under review', at } }], 'none');
    // Asked again once held (or once the refund is under way), it answers nothing new, not a conflict.
    const heldAfter: OfframpEvent = { type: 'offramp.payout_held', data: { errorMessage: 'Declined in review by Ada Obi: beneficiary under review', at } };
    expect(decideOfframp(reject, fold([live, deposit, swapped, waiting, rejected, heldAfter]))).toEqual([]);
    const failingAfter: OfframpEvent = { type: 'offramp.failing', data: { errorMessage: 'declined', failureReason: 'DECLINED_IN_REVIEW', at } };
    expect(decideOfframp(reject, fold([...base, waiting, rejected, failingAfter]))).toEqual([]);
  });

  it('books a deposit reorganised away during a live attempt as after a payout: the attempt may have paid', () => {
    const deposit: OfframpEvent = { type: 'offramp.deposit_received', data: { amount: '100', transactionHash: '0xdep', depositId: 'base:0xdep:0', at } };
    const state = foldInitiated([initiated(false), deposit, swapped, attempt(1, 'paystack', 'pending')]);
    const decided = decideOfframp(
      { type: 'recordDepositReversed', depositId: 'base:0xdep:0', transactionHash: '0xdep', credit: 1, refunded: false, at },
      state,
    );
    expect(decided).toEqual([expect.objectContaining({ type: 'offramp.deposit_reversed', data: expect.objectContaining({ afterPayout: true }) })]);
  });

  it('records a reversal of a paid payout once, holds the off-ramp for an operator, and ignores one of another reference', () => {
    const paidLive = [...base, attempt(1, 'paystack', 'paid'), { type: 'offramp.paid_out', data: { payoutReference: ref(1), at } } as OfframpEvent];
    given(paidLive)
      .when({ type: 'recordPayoutReversed', payoutReference: ref(1), at })
      .then(
        [
          { type: 'offramp.payout_attempted', data: expect.objectContaining({ attempt: 1, state: 'reversed', sends: 1 }) },
          { type: 'offramp.payout_reversed', data: { provider: 'paystack', payoutReference: ref(1), amount: '149010.75', at } },
        ],
        'none',
      );
    const completed = [...paidLive, { type: 'offramp.completed', data: { at } } as OfframpEvent];
    given(completed)
      .when({ type: 'recordPayoutReversed', payoutReference: ref(1), at })
      .then([{ type: 'offramp.payout_attempted' }, { type: 'offramp.payout_reversed' }]);
    const reversed = decideOfframp({ type: 'recordPayoutReversed', payoutReference: ref(1), at }, fold(completed));
    given([...completed, ...reversed])
      .when({ type: 'recordPayoutReversed', payoutReference: ref(1), at })
      .then([]);
    given(completed).when({ type: 'recordPayoutReversed', payoutReference: 'txn_y-payout-1', at }).then([]);
    expect(fold([...completed, ...reversed])).toEqual(
      expect.objectContaining({ status: 'completed', payoutReversal: { provider: 'paystack', payoutReference: ref(1), amount: '149010.75', at } }),
    );
  });

  it('holds a payout reversed before its payment was recorded, from the partner event or from the look-up, and never completes it', () => {
    const pending = [...base, sending(1, 'paystack'), attempt(1, 'paystack', 'pending')];
    // The event came first: recorded as a reversal of the pending attempt.
    given(pending)
      .when({ type: 'recordPayoutReversed', payoutReference: ref(1), at })
      .then([{ type: 'offramp.payout_attempted', data: expect.objectContaining({ state: 'reversed' }) }, { type: 'offramp.payout_reversed' }], 'none');
    // The look-up came first: the same.
    given(pending)
      .when(answer(1, 'paystack', 'reversed'))
      .then([{ type: 'offramp.payout_attempted', data: expect.objectContaining({ state: 'reversed' }) }, { type: 'offramp.payout_reversed' }], 'none');
    // The look-up's "paid" arriving after the reversal records nothing: the off-ramp stays held, never completed.
    const reversedFirst = [...pending, ...decideOfframp({ type: 'recordPayoutReversed', payoutReference: ref(1), at }, fold(pending))];
    given(reversedFirst)
      .when(answer(1, 'paystack', 'paid'))
      .then([]);
    expect(nextOfframpStep(fold(reversedFirst)).kind).toBe('none');
    // A failed attempt moved nothing: nothing to reverse.
    given([...base, attempt(1, 'paystack', 'failed')])
      .when({ type: 'recordPayoutReversed', payoutReference: ref(1), at })
      .then([]);
  });
});
