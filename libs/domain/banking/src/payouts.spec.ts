import { nextPayoutStep, payoutReference, paystackPayoutState, transactionOfPayoutReference, type PayoutAttempt } from './payouts';

describe('payoutReference', () => {
  it('is the same for the same attempt, new for the next, within Paystack’s characters and length', () => {
    const id = 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V';
    expect(payoutReference(id, 1)).toBe('txn_01jd7x3q9z8k4m2n6p5r7s9t1v-payout-1');
    expect(payoutReference(id, 1)).toBe(payoutReference(id, 1));
    expect(payoutReference(id, 2)).not.toBe(payoutReference(id, 1));
    expect(payoutReference(id, 2)).toMatch(/^[a-z0-9_-]{16,50}$/);
    expect(() => payoutReference(id, 0)).toThrow(RangeError);
    expect(() => payoutReference('x'.repeat(60), 1)).toThrow(/16 to 50/);
  });

  it("is read back to its transaction, and nothing else is (a partner's event for a reference the platform never made)", () => {
    const id = 'txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V';
    expect(transactionOfPayoutReference(payoutReference(id, 1))).toBe(id);
    expect(transactionOfPayoutReference(payoutReference(id, 12))).toBe(id);
    for (const other of [
      null,
      undefined,
      '',
      'off_123',
      `${payoutReference(id, 1)}x`,
      'txn_01jd7x3q9z8k4m2n6p5r7s9t1v-payout-0',
      'txn_01jd7x3q9z8k4m2n6p5r7s9t1-payout-1',
    ])
      expect(transactionOfPayoutReference(other)).toBeUndefined();
  });
});

describe('paystackPayoutState', () => {
  it.each([
    ['success', 'paid'],
    ['reversed', 'reversed'],
    ['failed', 'failed'],
    ['abandoned', 'failed'],
    ['rejected', 'failed'],
    ['blocked', 'failed'],
    ['otp', 'held'],
    ['pending', 'pending'],
    ['received', 'pending'],
    ['queued', 'pending'],
  ])('%s is %s', (status, state) => {
    expect(paystackPayoutState(status)).toBe(state);
  });
});

describe('nextPayoutStep - one off-ramp never has two live payouts', () => {
  const attempt = (provider: string, state: PayoutAttempt['state'], n = 1): PayoutAttempt => ({ provider, reference: `ref-${n}`, state });
  const providers = ['paystack', 'flutterwave'];

  it('starts with the first provider', () => {
    expect(nextPayoutStep([], providers)).toEqual({ kind: 'send', provider: 'paystack', attempt: 1 });
  });

  it('never starts another while one may have moved money: unknown is sent again as it was, pending waited for', () => {
    expect(nextPayoutStep([attempt('paystack', 'unknown')], providers)).toEqual({ kind: 'resend', attempt: attempt('paystack', 'unknown') });
    expect(nextPayoutStep([attempt('paystack', 'failed'), attempt('flutterwave', 'unknown', 2)], providers)).toMatchObject({
      kind: 'resend',
      attempt: { provider: 'flutterwave', reference: 'ref-2' },
    });
    expect(nextPayoutStep([attempt('paystack', 'pending')], providers)).toMatchObject({ kind: 'wait' });
    expect(nextPayoutStep([attempt('paystack', 'failed'), attempt('flutterwave', 'pending', 2)], providers)).toMatchObject({
      kind: 'wait',
      attempt: { provider: 'flutterwave' },
    });
  });

  it('takes a paid transfer as the outcome, and stops for an operator on a reversed or held one', () => {
    expect(nextPayoutStep([attempt('paystack', 'paid')], providers)).toMatchObject({ kind: 'done', attempt: { state: 'paid' } });
    expect(nextPayoutStep([attempt('paystack', 'reversed')], providers)).toMatchObject({ kind: 'hold', attempt: { state: 'reversed' } });
    expect(nextPayoutStep([attempt('paystack', 'held')], providers)).toMatchObject({ kind: 'hold', attempt: { state: 'held' } });
  });

  it('moves to the next provider only once the last transfer is known to have moved no money', () => {
    expect(nextPayoutStep([attempt('paystack', 'failed')], providers)).toEqual({ kind: 'send', provider: 'flutterwave', attempt: 2 });
    expect(nextPayoutStep([attempt('paystack', 'rejected')], providers)).toEqual({ kind: 'send', provider: 'flutterwave', attempt: 2 });
    expect(nextPayoutStep([attempt('paystack', 'failed'), attempt('flutterwave', 'failed', 2)], providers)).toEqual({
      kind: 'send',
      provider: 'paystack',
      attempt: 3,
    });
    // One provider configured (or the others out of rotation): the same one again, under a new reference.
    expect(nextPayoutStep([attempt('paystack', 'failed')], ['paystack'])).toEqual({ kind: 'send', provider: 'paystack', attempt: 2 });
  });

  it('gives up after maxAttempts, or with no provider in rotation', () => {
    const failed = [attempt('paystack', 'failed', 1), attempt('flutterwave', 'failed', 2), attempt('paystack', 'failed', 3)];
    expect(nextPayoutStep(failed, providers)).toEqual({ kind: 'exhausted' });
    expect(nextPayoutStep([], [])).toEqual({ kind: 'exhausted' });
  });
});
