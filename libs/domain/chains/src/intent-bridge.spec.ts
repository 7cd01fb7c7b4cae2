import { BRIDGE_REFUND_ATTEMPTS, bridgeMovement, bridgeOutcome, bridgeSendKey, bridgeStatusAfter, latestRefund, parseBridgeSendKey } from './intent-bridge';

describe('intent bridge rules', () => {
  it('moves a bridge along as its sends become final: deposited or failed, filled or unfilled, settled or refunded', () => {
    expect([bridgeStatusAfter('deposit', true, 0), bridgeStatusAfter('deposit', false, 0)]).toEqual(['deposited', 'failed']);
    expect([bridgeStatusAfter('fill', true, 0), bridgeStatusAfter('fill', false, 0)]).toEqual(['filled', 'unfilled']);
    expect([bridgeStatusAfter('settle', true, 0), bridgeStatusAfter('settle', false, 0)]).toEqual(['settled', 'stuck']);
    expect(bridgeStatusAfter('refund', true, 2)).toBe('refunded');
  });

  it('queues a failed refund again until the last attempt, then leaves the bridge to an operator', () => {
    const after = Array.from({ length: BRIDGE_REFUND_ATTEMPTS }, (_, failed) => bridgeStatusAfter('refund', false, failed));
    expect(after).toEqual([...Array(BRIDGE_REFUND_ATTEMPTS - 1).fill('unfilled'), 'stuck']);
  });

  it('tells the caller filled once the fill is confirmed, failed when stuck unfilled, pending while under way', () => {
    expect((['filled', 'settling', 'settled'] as const).map((status) => bridgeOutcome(status, true))).toEqual(['filled', 'filled', 'filled']);
    // A repayment that failed after the fill: the recipient was paid.
    expect(bridgeOutcome('stuck', true)).toBe('filled');
    // Refunds that failed: the route fails, the customer is made whole while an operator recovers the pool.
    expect(bridgeOutcome('stuck', false)).toBe('failed');
    expect([bridgeOutcome('refunded', false), bridgeOutcome('failed', false)]).toEqual(['refunded', 'failed']);
    expect((['depositing', 'deposited', 'filling', 'unfilled', 'refunding'] as const).map((status) => bridgeOutcome(status, false))).toEqual(
      Array(5).fill('pending'),
    );
  });

  it('finds the refund sent last: none before the first, the one under way, or the one that failed last', () => {
    expect(latestRefund('deposited', 0)).toBeUndefined();
    expect([latestRefund('refunding', 0), latestRefund('refunded', 0)]).toEqual([0, 0]);
    expect([latestRefund('unfilled', 1), latestRefund('refunding', 1), latestRefund('refunded', 2)]).toEqual([0, 1, 2]);
    expect(latestRefund('stuck', BRIDGE_REFUND_ATTEMPTS)).toBe(BRIDGE_REFUND_ATTEMPTS - 1);
  });

  it('books the deposit and a fill to an address as leaving, the repayment and the refund as arriving, a fill to the hot wallet as nothing', () => {
    const bridge = { amountIn: '25', amountOut: '24.5', fillsHotWallet: false };
    expect((['deposit', 'fill', 'settle', 'refund'] as const).map((role) => bridgeMovement(role, bridge))).toEqual([
      { amount: '25', direction: 'out' },
      { amount: '24.5', direction: 'out' },
      { amount: '25', direction: 'in' },
      { amount: '25', direction: 'in' },
    ]);
    expect(bridgeMovement('fill', { ...bridge, fillsHotWallet: true })).toBeUndefined();
  });

  it('keys each send by bridge and role, each refund attempt apart, and reads keys with colons back', () => {
    const key = 'txn_01M8APK2M42BZJYN4FTXG1EJE1:leg:1';
    expect([bridgeSendKey(key, 'fill'), bridgeSendKey(key, 'refund', 2)]).toEqual([`bridge:${key}:fill`, `bridge:${key}:refund:2`]);
    expect(parseBridgeSendKey(bridgeSendKey(key, 'refund', 2))).toEqual({ key, role: 'refund' });
    expect(parseBridgeSendKey(bridgeSendKey(key, 'deposit'))).toEqual({ key, role: 'deposit' });
    expect(parseBridgeSendKey(`swap:${key}`)).toBeUndefined();
    expect(parseBridgeSendKey('sweep:test:base:0xab:1')).toBeUndefined();
  });
});
