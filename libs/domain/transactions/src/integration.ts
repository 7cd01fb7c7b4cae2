import type { IntegrationEvent, IntegrationEventName } from '@ramp/contracts';
import type { TransactionView } from './transaction-view';

/**
 * The integration event a terminal domain event stands for (`offramp.completed`, `onramp.failed`, ...), built from
 * the transaction as it is after that event; undefined for every other event. `metadata` carries the ids a
 * receiver may want beyond the spec's fields (the event id for deduplication, the callback URL's owner keeps none).
 */
export function integrationEventOf(view: TransactionView, domainEventType: string, eventId: string, at: string): IntegrationEvent | undefined {
  const name = domainEventType as IntegrationEventName;
  if (name !== `${view.type}.completed` && name !== `${view.type}.failed`) return undefined;
  const status = name.endsWith('.completed') ? 'completed' : 'failed';
  const event: IntegrationEvent = {
    event: name,
    timestamp: at,
    data: withoutAbsent({
      transactionId: view.id,
      reference: view.reference,
      type: view.type,
      status,
      amount: view.amount,
      tokenSymbol: view.tokenSymbol,
      chain: view.chain,
      transactionHash: view.transactionHash,
      fiatAmount: view.ramp?.fiatAmount,
      fiatCurrency: view.ramp?.fiatCurrency,
      payoutAmount: view.type === 'offramp' ? view.ramp?.payoutAmount : undefined,
      walletId: view.walletId,
      metadata: { eventId },
      errorMessage: status === 'failed' ? (view.errorMessage ?? 'The transaction failed') : undefined,
      failureReason: status === 'failed' ? (view.failureReason ?? 'TRANSACTION_FAILED') : undefined,
    }),
  };
  return event;
}

/** `data` without its undefined (and null, from views stored before absent meant absent) fields. */
function withoutAbsent<T extends object>(data: T): T {
  return Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined && value !== null)) as T;
}
