import { matchCollectionPayment, type CollectionCandidate } from './collection-match';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 28, 10, minute)).toISOString();
const onramp = (id: string, amount: string, createdMinute: number, organizationId = 'org_a'): CollectionCandidate => ({
  transactionId: id,
  organizationId,
  amount,
  createdAt: at(createdMinute),
  // Each account is open 30 minutes.
  expiresAt: at(createdMinute + 30),
});

describe('matchCollectionPayment', () => {
  it('gives an exact payment to the oldest open on-ramp asking that amount', () => {
    const waiting = [onramp('txn_b', '5000', 5), onramp('txn_a', '5000', 1), onramp('txn_c', '7000', 0)];
    expect(matchCollectionPayment({ amount: '5000.00', paidAt: at(10) }, waiting, true)).toEqual({ kind: 'onramp', transactionId: 'txn_a', late: false });
  });

  it('holds any payment into an account on which on-ramps of two organizations sharing the payer wait', () => {
    const waiting = [onramp('txn_a', '5000', 1, 'org_a'), onramp('txn_b', '5000', 2, 'org_b')];
    expect(matchCollectionPayment({ amount: '5000', paidAt: at(10) }, waiting, true)).toMatchObject({ kind: 'hold' });
    // A late payer of org_a's expired on-ramp never pays org_b's open one of the same amount.
    const lateAndOpen = [onramp('txn_a', '5000', 0, 'org_a'), onramp('txn_b', '5000', 40, 'org_b')];
    expect(matchCollectionPayment({ amount: '5000', paidAt: at(45) }, lateAndOpen, true)).toMatchObject({ kind: 'hold' });
    // Nor while another organization's on-ramp on the account is still being initiated.
    expect(matchCollectionPayment({ amount: '5000', paidAt: at(10) }, [onramp('txn_a', '5000', 1)], true, new Set(['org_a', 'org_b']))).toMatchObject({
      kind: 'hold',
    });
  });

  it("gives a wrong amount to the one open on-ramp (which refunds it), and refunds it at once when it can't tell which", () => {
    expect(matchCollectionPayment({ amount: '4999.99', paidAt: at(10) }, [onramp('txn_a', '5000', 1)], true)).toEqual({
      kind: 'onramp',
      transactionId: 'txn_a',
      late: false,
    });
    const two = [onramp('txn_a', '5000', 1), onramp('txn_b', '6000', 2)];
    expect(matchCollectionPayment({ amount: '4999.99', paidAt: at(10) }, two, true)).toMatchObject({ kind: 'refund' });
  });

  it('gives a payment after every account expired to the on-ramp that expired last, as late', () => {
    const waiting = [onramp('txn_a', '5000', 0), onramp('txn_b', '5000', 20), onramp('txn_c', '9000', 10)];
    expect(matchCollectionPayment({ amount: '5000', paidAt: at(55) }, waiting, true)).toEqual({ kind: 'onramp', transactionId: 'txn_b', late: true });
    // An expired on-ramp asking that amount never takes it while another is open.
    expect(matchCollectionPayment({ amount: '5000', paidAt: at(45) }, waiting, true)).toEqual({ kind: 'onramp', transactionId: 'txn_b', late: false });
    expect(matchCollectionPayment({ amount: '9000', paidAt: at(45) }, waiting, true)).toEqual({ kind: 'onramp', transactionId: 'txn_b', late: false });
  });

  it('refunds a payment into an account whose on-ramps are all paid, and knows nothing of an account never given', () => {
    expect(matchCollectionPayment({ amount: '5000', paidAt: at(10) }, [], true)).toMatchObject({ kind: 'refund' });
    expect(matchCollectionPayment({ amount: '5000', paidAt: at(10) }, [], false)).toEqual({ kind: 'unknown' });
  });
});
