import type { OnrampQuote } from '@ramp/contracts';
import { viewAtVersion } from '@ramp/transactions';
import {
  cngnSpent,
  decideOnramp,
  evolveOnramp,
  fromTreasury,
  initialOnrampState,
  nextOnrampStep,
  onrampView,
  RAMP_KINDS,
  type OnrampCommand,
  type OnrampEvent,
} from './index';

const at = '2026-11-22T10:00:00.000Z';
const quote = (tokenSymbol = 'USDC'): OnrampQuote.Response => ({
  quoteId: 'qt_01M82JKS0653T6WKTARA9RFX7D',
  expiresAt: at,
  fiatAmount: '50000',
  fiatCurrency: 'NGN',
  cryptoAmount: tokenSymbol === 'CNGN' ? '49910' : '33.1',
  tokenSymbol,
  chain: 'base',
  rate: '1507.5',
  fees: { providerFee: '100.00', platformFee: '20.00', swapFee: '20.00', totalFee: '140.00' },
});
const initiated = (toWallet: boolean, tokenSymbol = 'USDC'): OnrampEvent => ({
  type: 'onramp.initiated',
  data: {
    transactionId: 'txn_01M82JKS0653T6WKTARA9RFX7D',
    tenant: { organizationId: 'org_a', environment: 'test', keyId: 'key_a' },
    quote: quote(tokenSymbol),
    walletId: toWallet ? 'wal_01M82JKS0653T6WKTARA9RFX7D' : null,
    destinationAddress: toWallet ? null : '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    virtualAccount: {
      bankName: 'Wema Bank',
      bankCode: '035',
      accountNumber: '0123456789',
      accountName: 'RAMP CHECKOUT',
      amount: '50000',
      expiresAt: '2026-11-22T10:30:00.000Z',
    },
    reference: null,
    callbackUrl: null,
    at,
  },
});
const paid: OnrampEvent = { type: 'onramp.payment_received', data: { amount: '50000.00', payerReference: 'NIP1', at } };
const minted: OnrampEvent = { type: 'onramp.cngn_minted', data: { amount: '49860', transactionHash: '0xmint', at } };

function given(events: OnrampEvent[]) {
  const state = events.reduce(evolveOnramp, initialOnrampState);
  return {
    when: (command: OnrampCommand) => ({
      then(expected: string[], nextStep?: string) {
        const decided = decideOnramp(command, state);
        expect(decided.map((event) => event.type)).toEqual(expected);
        if (nextStep) expect(nextOnrampStep(decided.reduce(evolveOnramp, state)).kind).toBe(nextStep);
      },
    }),
  };
}

describe('on-ramp', () => {
  it('waits for the NGN payment until the virtual account expires', () => {
    expect(nextOnrampStep([initiated(true)].reduce(evolveOnramp, initialOnrampState))).toEqual({ kind: 'awaitPayment', until: '2026-11-22T10:30:00.000Z' });
  });

  it('mints CNGN for the payment, swaps it unless CNGN was bought, delivers and completes', () => {
    given([initiated(true)])
      .when({ type: 'recordPayment', amount: '50000.00', payerReference: 'NIP1', at })
      .then(['onramp.payment_received'], 'mintCngn');
    given([initiated(true), paid])
      .when({ type: 'recordMint', amount: '49860', transactionHash: '0xmint', at })
      .then(['onramp.cngn_minted'], 'swapFromCngn');
    given([initiated(true, 'CNGN'), paid])
      .when({ type: 'recordMint', amount: '49860', transactionHash: '0xmint', at })
      .then(['onramp.cngn_minted'], 'deliver');
    given([initiated(true), paid, minted])
      .when({ type: 'recordSwap', ok: true, amount: '33.1', transactionHash: '0xswap', at })
      .then(['onramp.swapped'], 'deliver');
    given([initiated(true, 'CNGN'), paid, minted])
      .when({ type: 'recordDelivery', transactionHash: '0xsend', at })
      .then(['onramp.delivered', 'onramp.completed'], 'none');
  });

  it("runs a live on-ramp on its chain from the treasury's CNGN: no mint, the swap spends what a mint would have given", () => {
    const live = (tokenSymbol = 'USDC', settlement?: 'onchain'): OnrampEvent => {
      const event = initiated(false, tokenSymbol) as Extract<OnrampEvent, { type: 'onramp.initiated' }>;
      return { ...event, data: { ...event.data, tenant: { ...event.data.tenant, environment: 'live' }, ...(settlement && { settlement }) } };
    };
    given([live('USDC', 'onchain')])
      .when({ type: 'recordPayment', amount: '50000.00', payerReference: 'NIP1', at })
      .then(['onramp.payment_received'], 'swapFromCngn');
    const state = [live('USDC', 'onchain'), paid].reduce(evolveOnramp, initialOnrampState);
    expect(fromTreasury(state)).toBe(true);
    expect(cngnSpent(state as Parameters<typeof cngnSpent>[0])).toBe('49860');
    expect(() => decideOnramp({ type: 'recordMint', amount: '49860', transactionHash: '0xmint', at }, state)).not.toThrow();
    expect(decideOnramp({ type: 'recordMint', amount: '49860', transactionHash: '0xmint', at }, state)).toEqual([]);
    given([live('USDC', 'onchain'), paid])
      .when({ type: 'recordSwap', ok: true, amount: '33.1', transactionHash: '0xswap', at })
      .then(['onramp.swapped'], 'deliver');
    given([live('CNGN', 'onchain')])
      .when({ type: 'recordPayment', amount: '50000.00', payerReference: 'NIP1', at })
      .then(['onramp.payment_received'], 'deliver');
    // A live on-ramp not on chain (recorded before live chains), and a test key's, still mint first.
    given([live('USDC')])
      .when({ type: 'recordPayment', amount: '50000.00', payerReference: 'NIP1', at })
      .then(['onramp.payment_received'], 'mintCngn');
    expect(cngnSpent([initiated(false), paid, minted].reduce(evolveOnramp, initialOnrampState) as Parameters<typeof cngnSpent>[0])).toBe('49860');
  });

  it("lets a live delivery wait for an operator's approval, and records who approved it", () => {
    const require: OnrampCommand = { type: 'requireApproval', amountNgn: '50000', thresholdNgn: '10000', at };
    const approve: OnrampCommand = { type: 'approve', operator: 'Ada Obi', at };
    const swapped: OnrampEvent = { type: 'onramp.swapped', data: { amount: '33.1', transactionHash: '0xswap', at } };
    // Only what spends the treasury's funds waits (the swap, the delivery): before it, nothing is required and an
    // approval is refused.
    expect(decideOnramp(require, [initiated(false), paid].reduce(evolveOnramp, initialOnrampState))).toEqual([]);
    expect(() => decideOnramp(approve, [initiated(false), paid].reduce(evolveOnramp, initialOnrampState))).toThrow(/does not wait/);
    given([initiated(false), paid, minted])
      .when(require)
      .then(['onramp.approval_required'], 'swapFromCngn');
    // While it waits, neither the swap nor the delivery is recorded, whatever asks.
    const waitingToSwap = [
      initiated(false),
      paid,
      minted,
      { type: 'onramp.approval_required', data: { amountNgn: '50000', thresholdNgn: '10000', at } } as OnrampEvent,
    ].reduce(evolveOnramp, initialOnrampState);
    expect(() => decideOnramp({ type: 'recordSwap', ok: true, amount: '33.1', transactionHash: '0xswap', at }, waitingToSwap)).toThrow(/waits for an operator/);
    given([initiated(false), paid, minted, swapped])
      .when(require)
      .then(['onramp.approval_required'], 'deliver');
    const waiting: OnrampEvent = { type: 'onramp.approval_required', data: { amountNgn: '50000', thresholdNgn: '10000', at } };
    given([initiated(false), paid, minted, swapped, waiting])
      .when(approve)
      .then(['onramp.approved'], 'deliver');
    expect(() =>
      decideOnramp(
        { type: 'recordDelivery', transactionHash: '0xsend', at },
        [initiated(false), paid, minted, swapped, waiting].reduce(evolveOnramp, initialOnrampState),
      ),
    ).toThrow(/waits for an operator/);
    const state = [initiated(false), paid, minted, swapped, waiting, { type: 'onramp.approved', data: { operator: 'Ada Obi', at } } as OnrampEvent].reduce(
      evolveOnramp,
      initialOnrampState,
    );
    expect(state.approval).toEqual({ required: waiting.data, approved: { operator: 'Ada Obi', at } });
    expect(decideOnramp(approve, state)).toEqual([]);
  });

  it('holds an on-ramp for compliance: nothing is delivered, nor refunded, from then on; held once', () => {
    const hold: OnrampCommand = { type: 'holdForCompliance', address: '0xdef', role: 'destination address', reason: 'listed', at };
    given([initiated(false), paid, minted])
      .when(hold)
      .then(['onramp.compliance_hold'], 'none');
    const heldState = [
      initiated(false),
      paid,
      minted,
      { type: 'onramp.compliance_hold', data: { address: '0xdef', role: 'destination address', reason: 'listed', at } } as OnrampEvent,
    ].reduce(evolveOnramp, initialOnrampState);
    expect(heldState).toMatchObject({ status: 'pending', complianceHold: { address: '0xdef', role: 'destination address' } });
    expect(decideOnramp(hold, heldState)).toEqual([]);
    expect(decideOnramp({ type: 'recordSwap', ok: true, amount: '33.1', transactionHash: '0xswap', at }, heldState)).toEqual([]);
    expect(decideOnramp({ type: 'recordDelivery', transactionHash: '0xsend', at }, heldState)).toEqual([]);
  });

  it('refunds the Naira of an on-ramp an operator declines in review, before anything of the treasury is spent', () => {
    const reject: OnrampCommand = { type: 'reject', operator: 'Ada Obi', reason: 'payer under review', at };
    const waiting: OnrampEvent = { type: 'onramp.approval_required', data: { amountNgn: '50000', thresholdNgn: '10000', at } };
    expect(() => decideOnramp(reject, [initiated(false), paid, minted].reduce(evolveOnramp, initialOnrampState))).toThrow(/does not wait/);
    given([initiated(false), paid, minted, waiting])
      .when(reject)
      .then(['onramp.approval_rejected', 'onramp.failing'], 'refundPayment');
    expect(decideOnramp(reject, [initiated(false), paid, minted, waiting].reduce(evolveOnramp, initialOnrampState))).toEqual([
      { type: 'onramp.approval_rejected', data: { operator: 'Ada Obi', reason: 'payer under review', at } },
      {
        type: 'onramp.failing',
        data: { errorMessage: expect.stringMatching(/^An operator declined .*the Naira is refunded$/), failureReason: 'DECLINED_IN_REVIEW', at },
      },
    ]);
    const declined = [
      initiated(false),
      paid,
      minted,
      waiting,
      ...decideOnramp(reject, [initiated(false), paid, minted, waiting].reduce(evolveOnramp, initialOnrampState)),
    ];
    const state = declined.reduce(evolveOnramp, initialOnrampState);
    expect(state.approval?.rejected).toEqual({ operator: 'Ada Obi', reason: 'payer under review', at });
    // Declined: nothing spends the treasury's CNGN any more, whatever asks; an approval now is refused.
    expect(decideOnramp({ type: 'recordSwap', ok: true, amount: '33.1', transactionHash: '0xswap', at }, state)).toEqual([]);
    expect(() => decideOnramp({ type: 'approve', operator: 'Someone Else', at }, state)).toThrow(/does not wait/);
    // Declined again: nothing new, not a conflict, though the on-ramp now refunds.
    expect(decideOnramp(reject, state)).toEqual([]);
    // Waiting at its delivery after the treasury's CNGN was swapped (the threshold lowered in between): only an approval.
    const swapped: OnrampEvent = { type: 'onramp.swapped', data: { amount: '33.1', transactionHash: '0xswap', at } };
    const afterSwap = [initiated(false), paid, minted, swapped, waiting].reduce(evolveOnramp, initialOnrampState);
    expect(() => decideOnramp(reject, afterSwap)).toThrow(/can only be approved/);
  });

  it('refunds a payment of the wrong amount, then fails', () => {
    given([initiated(true)])
      .when({ type: 'recordPayment', amount: '40000', payerReference: 'NIP2', at })
      .then(['onramp.payment_received', 'onramp.failing'], 'refundPayment');
    const failing: OnrampEvent = { type: 'onramp.failing', data: { errorMessage: 'wrong amount', at } };
    given([initiated(true), paid, failing])
      .when({ type: 'recordRefund', refundReference: 'R1', at })
      .then(['onramp.payment_refunded'], 'fail');
    given([initiated(true), paid, failing, { type: 'onramp.payment_refunded', data: { refundReference: 'R1', at } }])
      .when({ type: 'fail', reason: 'x', failureReason: 'TRANSACTION_FAILED', at })
      .then(['onramp.failed'], 'none');
  });

  it('refunds the payment when the swap fails', () => {
    given([initiated(true), paid, minted])
      .when({ type: 'recordSwap', ok: false, reason: 'no liquidity', at })
      .then(['onramp.failing'], 'refundPayment');
  });

  it('fails when nothing was paid before expiry, and refunds a payment that comes later', () => {
    given([initiated(false)])
      .when({ type: 'expirePayment', at })
      .then(['onramp.failing'], 'fail');
    const failed: OnrampEvent[] = [
      initiated(false),
      { type: 'onramp.failing', data: { errorMessage: 'expired', at } },
      { type: 'onramp.failed', data: { errorMessage: 'expired', at } },
    ];
    given(failed).when({ type: 'recordPayment', amount: '50000', payerReference: 'NIP3', at }).then(['onramp.payment_received'], 'refundPayment');
    given([initiated(false), paid])
      .when({ type: 'expirePayment', at })
      .then([]);
  });

  it('ignores replays and refuses to fail after delivery', () => {
    given([initiated(true), paid])
      .when({ type: 'recordPayment', amount: '50000', payerReference: 'NIP1', at })
      .then([]);
    const delivered: OnrampEvent[] = [initiated(true, 'CNGN'), paid, minted, { type: 'onramp.delivered', data: { transactionHash: '0xsend', at } }];
    expect(() =>
      decideOnramp({ type: 'fail', reason: 'x', failureReason: 'TRANSACTION_FAILED', at }, delivered.reduce(evolveOnramp, initialOnrampState)),
    ).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
  });

  it('shows the payment instructions and the ramp object in the Transaction', () => {
    const view = onrampView([initiated(true), paid].reduce(evolveOnramp, initialOnrampState));
    expect(view).toMatchObject({ type: 'onramp', status: 'pending', amount: '33.1', tokenSymbol: 'USDC', ramp: { fiatAmount: '50000', fiatCurrency: 'NGN' } });
    expect(view.paymentInstructions).toMatchObject({ bankName: 'Wema Bank', amount: '50000' });
  });
});

describe('ONRAMP_KIND: the on-ramp as the ramp service shows it at each version of its stream', () => {
  const envelope = (version: number, event: OnrampEvent) => ({ streamVersion: version, ...event });

  it("folds the stream up to the version asked for, with the on-ramp's own rules", () => {
    const events = [envelope(1, initiated(true)), envelope(2, paid), envelope(3, minted)];
    expect(viewAtVersion(RAMP_KINDS, events, 1)).toEqual(onrampView(evolveOnramp(initialOnrampState, initiated(true))));
    expect(viewAtVersion(RAMP_KINDS, events, 3)).toEqual(onrampView([initiated(true), paid, minted].reduce(evolveOnramp, initialOnrampState)));
    expect(viewAtVersion(RAMP_KINDS, [{ streamVersion: 1, type: 'swap.initiated', data: {} }], 1)).toBeUndefined();
  });
});
