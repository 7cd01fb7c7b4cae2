/**
 * The rules of a bridge by intent (the chain service's relayer; docs/chains.md, "Bridging"), pure: how a bridge's
 * status moves when one of its sends becomes final, what its caller is told, which refund was sent last, what each
 * send moves in or out of the hot wallet, and the sends' idempotency keys. The relayer holds the state and the I/O.
 */

/** The sends of a bridge: the deposit and the repayment or refund on the source chain, the fill on the destination. */
export type BridgeRole = 'deposit' | 'fill' | 'settle' | 'refund';

export type BridgeStatus =
  'depositing' | 'deposited' | 'filling' | 'filled' | 'unfilled' | 'settling' | 'settled' | 'refunding' | 'refunded' | 'failed' | 'stuck';

/** What a bridge's caller is told (ChainBridge.Response). */
export type BridgeOutcome = 'pending' | 'filled' | 'refunded' | 'failed';

/** Refunds sent in all before an unfilled bridge is an operator's: a failed one is queued again, a little later. */
export const BRIDGE_REFUND_ATTEMPTS = 3;

/**
 * The status a bridge takes when its `role` send becomes final. A failed refund goes back to `unfilled` (to be queued
 * again) until `BRIDGE_REFUND_ATTEMPTS` have failed; a failed repayment, or the last refund, leaves it `stuck`.
 * `failedRefunds` is the count before this send.
 */
export function bridgeStatusAfter(role: BridgeRole, confirmed: boolean, failedRefunds: number): BridgeStatus {
  switch (role) {
    case 'deposit':
      return confirmed ? 'deposited' : 'failed';
    case 'fill':
      return confirmed ? 'filled' : 'unfilled';
    case 'settle':
      return confirmed ? 'settled' : 'stuck';
    case 'refund':
      return confirmed ? 'refunded' : failedRefunds + 1 < BRIDGE_REFUND_ATTEMPTS ? 'unfilled' : 'stuck';
  }
}

/**
 * What the caller is told: `filled` once the fill is confirmed (whatever becomes of the repayment), `refunded`, `failed`
 * for a deposit that failed or a bridge stuck unfilled (its deposit stays in the pool for an operator, and the route
 * fails so that the customer is made whole meanwhile), `pending` otherwise.
 */
export function bridgeOutcome(status: BridgeStatus, fillConfirmed: boolean): BridgeOutcome {
  if (status === 'filled' || status === 'settling' || status === 'settled' || (status === 'stuck' && fillConfirmed)) return 'filled';
  if (status === 'refunded') return 'refunded';
  return status === 'failed' || status === 'stuck' ? 'failed' : 'pending';
}

/** The index of the refund sent last (its key's), or undefined before any was sent. */
export function latestRefund(status: BridgeStatus, failedRefunds: number): number | undefined {
  if (status === 'refunding' || status === 'refunded') return failedRefunds;
  return failedRefunds > 0 ? failedRefunds - 1 : undefined;
}

/**
 * What a confirmed send moved in or out of the hot wallet of its chain: the deposit leaves (`amountIn`), the repayment
 * and the refund come back (`amountIn`), a fill leaves (`amountOut`) unless it pays the hot wallet itself (the next
 * leg's input), which moves nothing.
 */
export function bridgeMovement(
  role: BridgeRole,
  bridge: { amountIn: string; amountOut: string; fillsHotWallet: boolean },
): { amount: string; direction: 'in' | 'out' } | undefined {
  if (role === 'fill') return bridge.fillsHotWallet ? undefined : { amount: bridge.amountOut, direction: 'out' };
  return { amount: bridge.amountIn, direction: role === 'deposit' ? 'out' : 'in' };
}

/** The idempotency key of a bridge's send: `bridge:<key>:<role>`, and `:<n>` for the n-th refund after failed ones. */
export function bridgeSendKey(key: string, role: BridgeRole, attempt = 0): string {
  return attempt === 0 ? `bridge:${key}:${role}` : `bridge:${key}:${role}:${attempt}`;
}

const SEND_KEY = /^bridge:(.+):(deposit|fill|settle|refund)(?::(\d+))?$/;

/** The bridge and role of a send's key, or undefined for a send that is not a bridge's. */
export function parseBridgeSendKey(sendKey: string): { key: string; role: BridgeRole } | undefined {
  const parsed = SEND_KEY.exec(sendKey);
  return parsed ? { key: parsed[1]!, role: parsed[2] as BridgeRole } : undefined;
}
