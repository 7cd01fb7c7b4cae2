import type { OfframpPayoutReversedEvent } from '@ramp/contracts';
import type { StoredEvent } from '@ramp/event-store';
import type { IncomingEvent } from './delivery-store';
import { namedEventOf } from './wallet-events';

/** The ramp service's domain event of a reversed payout (`events.ramp.offramp.payout_reversed`). */
export const PAYOUT_REVERSED = 'offramp.payout_reversed';

/**
 * The webhook event of an off-ramp's domain event after its end, as the notifier records it for the off-ramp's tenant:
 * `offramp.payout_reversed` when the bank sent a live payout back; undefined for every other event. Built once from the
 * event and the Transaction view it carries, so a redelivery records the same bytes. Like the wallets' events, it goes
 * only to webhooks that name it, and never to the off-ramp's callback URL (a callback receives its one end).
 */
export function offrampEventOf(event: StoredEvent): IncomingEvent | undefined {
  if (event.type !== PAYOUT_REVERSED) return undefined;
  const data = event.data as { payoutReference: string; amount: string };
  const view = (event.metadata.view ?? {}) as { id?: string; reference?: string | null; status?: OfframpPayoutReversedEvent['data']['status'] };
  const transactionId = view.id ?? event.metadata.correlationId;
  const payload: OfframpPayoutReversedEvent = {
    event: PAYOUT_REVERSED,
    timestamp: event.createdAt,
    data: {
      transactionId,
      ...(view.reference ? { reference: view.reference } : {}),
      type: 'offramp',
      status: view.status ?? 'completed',
      payoutAmount: data.amount,
      fiatCurrency: 'NGN',
      payoutReference: data.payoutReference,
      metadata: { eventId: event.eventId },
    },
  };
  return namedEventOf(event, payload, transactionId);
}
