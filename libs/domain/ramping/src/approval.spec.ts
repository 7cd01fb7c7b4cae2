import { AppError } from '@ramp/contracts';
import { awaitsApproval, decideApproval, needsApproval } from './approval';

const at = '2026-11-29T10:00:00.000Z';

describe('approvals - money above the threshold leaves a live ramp only once an operator approved it', () => {
  it('needs an approval strictly above the threshold, and never without one', () => {
    expect(needsApproval('5000000.01', '5000000')).toBe(true);
    expect(needsApproval('5000000', '5000000')).toBe(false);
    expect(needsApproval('149010.75', '100000')).toBe(true);
    expect(needsApproval('999999999', undefined)).toBe(false);
  });

  it('records once that the money waits, then once who approved it; waits only in between', () => {
    const required = decideApproval({ type: 'requireApproval', amountNgn: '149010.75', thresholdNgn: '100000', at }, undefined);
    expect(required).toEqual({ required: { amountNgn: '149010.75', thresholdNgn: '100000', at } });
    const waiting = { required: { amountNgn: '149010.75', thresholdNgn: '100000', at } };
    expect(awaitsApproval(waiting)).toBe(true);
    expect(decideApproval({ type: 'requireApproval', amountNgn: '149010.75', thresholdNgn: '100000', at }, waiting)).toBeUndefined();
    expect(decideApproval({ type: 'approve', operator: '  Ada Obi ', at }, waiting)).toEqual({ approved: { operator: 'Ada Obi', at } });
    const approved = { ...waiting, approved: { operator: 'Ada Obi', at } };
    expect(awaitsApproval(approved)).toBe(false);
    expect(awaitsApproval(undefined)).toBe(false);
    expect(decideApproval({ type: 'approve', operator: 'Someone Else', at }, approved)).toBeUndefined();
  });

  it('records once who declined it and why; never approves after a decline, nor declines after an approval', () => {
    const waiting = { required: { amountNgn: '149010.75', thresholdNgn: '100000', at } };
    const reject = { type: 'reject' as const, operator: ' Ada Obi ', reason: ' beneficiary under review ', at };
    expect(decideApproval(reject, waiting)).toEqual({ rejected: { operator: 'Ada Obi', reason: 'beneficiary under review', at } });
    const rejected = { ...waiting, rejected: { operator: 'Ada Obi', reason: 'beneficiary under review', at } };
    expect(awaitsApproval(rejected)).toBe(false);
    expect(decideApproval(reject, rejected)).toBeUndefined();
    expect(() => decideApproval({ type: 'approve', operator: 'Someone Else', at }, rejected)).toThrow(/Ada Obi declined the transaction already/);
    expect(() => decideApproval(reject, { ...waiting, approved: { operator: 'Ada Obi', at } })).toThrow(/Ada Obi approved the transaction already/);
    expect(() => decideApproval({ ...reject, reason: '' }, waiting)).toThrow(/reason/);
    expect(() => decideApproval(reject, undefined)).toThrow(/does not wait for an approval/);
  });

  it('refuses to approve what does not wait, or without a name', () => {
    expect(() => decideApproval({ type: 'approve', operator: 'Ada Obi', at }, undefined)).toThrow(
      new AppError('TRANSACTION_STATE_CONFLICT', 'The transaction does not wait for an approval'),
    );
    expect(() => decideApproval({ type: 'approve', operator: ' ', at }, { required: { amountNgn: '1', thresholdNgn: '0', at } })).toThrow(/operator/);
  });
});
