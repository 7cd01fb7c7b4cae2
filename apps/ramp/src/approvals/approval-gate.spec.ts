import { StepPending } from '@ramp/process-kit';
import { ApprovalGate, approvalThreshold } from './approval-gate';

const at = '2026-11-29T10:00:00.000Z';

describe('ApprovalGate - a live step that moves money above the threshold asks an approval first', () => {
  const warned: unknown[] = [];
  const gate = new ApprovalGate('100000', { warn: (fields: unknown) => void warned.push(fields) });

  it('lets money at or under the threshold move, and any with no threshold', () => {
    expect(gate.check('txn_a', undefined, '100000')).toBeUndefined();
    expect(new ApprovalGate(undefined).check('txn_a', undefined, '99999999')).toBeUndefined();
  });

  it('records that money above it waits (logged for an operator), then waits until it is approved', () => {
    expect(gate.check('txn_a', undefined, '149010.75')).toEqual({
      type: 'requireApproval',
      amountNgn: '149010.75',
      thresholdNgn: '100000',
      at: expect.any(String),
    });
    expect(warned).toEqual([{ transactionId: 'txn_a', amountNgn: '149010.75', thresholdNgn: '100000' }]);
    const waiting = { required: { amountNgn: '149010.75', thresholdNgn: '100000', at } };
    expect(() => gate.check('txn_a', waiting, '149010.75')).toThrow(StepPending);
    expect(() => gate.check('txn_a', waiting, '149010.75')).toThrow(/npm run ops -- approve txn_a/);
    // Recorded as waiting, it waits whatever the threshold became meanwhile.
    expect(() => new ApprovalGate(undefined).check('txn_a', waiting, '149010.75')).toThrow(StepPending);
    expect(gate.check('txn_a', { ...waiting, approved: { operator: 'Ada Obi', at } }, '149010.75')).toBeUndefined();
  });

  it('reads LIVE_APPROVAL_ABOVE_NGN: empty is none, anything but an amount of Naira is refused', () => {
    expect(approvalThreshold('')).toBeUndefined();
    expect(approvalThreshold(' 5000000 ')).toBe('5000000');
    expect(approvalThreshold('2500.50')).toBe('2500.50');
    for (const wrong of ['-1', '5e6', 'five', '1.234']) expect(() => approvalThreshold(wrong)).toThrow(/LIVE_APPROVAL_ABOVE_NGN/);
  });
});
