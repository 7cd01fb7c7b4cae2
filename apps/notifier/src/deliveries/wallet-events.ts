import { CHAIN_EVENT_TYPES, generationOf, type DepositReversed, type Environment, type Tenant, type WalletDepositReversedEvent } from '@ramp/contracts';
import type { StoredEvent } from '@ramp/event-store';
import type { IncomingEvent } from './delivery-store';

/**
 * The webhook event of a chain event about a managed wallet, as the notifier records it for the wallet's tenant:
 * `wallet.deposit_reversed` for a deposit a reorganisation removed after it was credited to a wallet; undefined for
 * every other chain event (an off-ramp's deposit, a send, ...). The body is built once from the event's data, so a
 * redelivery records the same bytes (and nothing more: one delivery per event id and target).
 */
export function walletEventOf(event: StoredEvent): IncomingEvent | undefined {
  if (event.type !== CHAIN_EVENT_TYPES.depositReversed) return undefined;
  const reversed = event.data as DepositReversed;
  const walletId = /^wallet:(.+)$/.exec(reversed.owner)?.[1];
  // Dust was never the wallet's: its reversal takes nothing from it.
  if (!walletId || reversed.dust) return undefined;
  const payload: WalletDepositReversedEvent = {
    event: 'wallet.deposit_reversed',
    timestamp: event.createdAt,
    data: {
      walletId,
      chain: reversed.chain,
      address: reversed.address,
      tokenSymbol: reversed.tokenSymbol,
      amount: reversed.amount,
      transactionHash: reversed.transactionHash,
      from: reversed.from,
      blockNumber: reversed.blockNumber,
      metadata: { eventId: event.eventId, depositId: reversed.depositId },
    },
  };
  return namedEventOf(event, payload, null);
}

/**
 * A webhook event added within /v1 (a wallet's, an off-ramp's), as the notifier records it from the domain event it
 * stands for: for the event's tenant, only to webhooks that name it (subscribedBy), never to a callback (no key, no URL).
 */
export function namedEventOf(event: StoredEvent, payload: { event: string }, transactionId: string | null): IncomingEvent {
  const tenant: Tenant = event.metadata.tenant;
  return {
    eventId: event.eventId,
    type: payload.event,
    body: JSON.stringify(payload),
    transactionId,
    organizationId: tenant.organizationId,
    environment: tenant.environment as Environment,
    generation: generationOf(tenant),
    keyId: null,
    callbackUrl: null,
    createdAt: event.createdAt,
    metadata: { correlationId: event.metadata.correlationId },
  };
}
