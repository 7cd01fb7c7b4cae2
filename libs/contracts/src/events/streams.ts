/**
 * Where each service's events live in JetStream. `namespace` (EVENTS_NAMESPACE, empty in production) keeps
 * environments that share one NATS server apart: the tests use `test`, so a developer's running stack and the test
 * suite never share a stream or a durable consumer.
 */
export interface EventStreamName {
  stream: string;
  /** `<prefix>.<event type>`, e.g. `events.ramp.offramp.completed`. */
  subjectPrefix: string;
}

export function rampEvents(namespace = ''): EventStreamName {
  return namespace
    ? { stream: `RAMP_EVENTS_${namespace.toUpperCase()}`, subjectPrefix: `${namespace}.events.ramp` }
    : { stream: 'RAMP_EVENTS', subjectPrefix: 'events.ramp' };
}

/** The swap-transfer service's events: `events.swap-transfer.<event type>`, e.g. `events.swap-transfer.swap.completed`. */
export function swapTransferEvents(namespace = ''): EventStreamName {
  return namespace
    ? { stream: `SWAP_TRANSFER_EVENTS_${namespace.toUpperCase()}`, subjectPrefix: `${namespace}.events.swap-transfer` }
    : { stream: 'SWAP_TRANSFER_EVENTS', subjectPrefix: 'events.swap-transfer' };
}

/** Every service stream that carries transactions' events, for the read models that follow them all. */
export function transactionEventStreams(namespace = ''): EventStreamName[] {
  return [rampEvents(namespace), swapTransferEvents(namespace)];
}

/**
 * The integration events `<type>.completed` and `<type>.failed` (`onramp`, `offramp`, `swap`, `transfer`) for
 * internal teams and the notifier: subject `integration.<type>.<outcome>`, payload the spec's webhook body.
 */
export function integrationEvents(namespace = ''): EventStreamName {
  return namespace
    ? { stream: `INTEGRATION_EVENTS_${namespace.toUpperCase()}`, subjectPrefix: `${namespace}.integration` }
    : { stream: 'INTEGRATION_EVENTS', subjectPrefix: 'integration' };
}

/** The spec's eight event names, in its order: what webhooks subscribe to and what the integration stream carries. */
export const INTEGRATION_EVENT_NAMES = [
  'onramp.completed',
  'onramp.failed',
  'offramp.completed',
  'offramp.failed',
  'swap.completed',
  'swap.failed',
  'transfer.completed',
  'transfer.failed',
] as const;

export type IntegrationEventName = (typeof INTEGRATION_EVENT_NAMES)[number];

/** The spec's delivery payload. `data.errorMessage` is added on failed events (the spec leaves it open). */
export interface IntegrationEvent {
  event: IntegrationEventName;
  timestamp: string;
  data: {
    transactionId: string;
    reference: string | null;
    type: 'onramp' | 'offramp' | 'swap' | 'transfer';
    status: 'completed' | 'failed';
    amount: string;
    tokenSymbol: string;
    chain: string;
    transactionHash: string | null;
    fiatAmount: string | null;
    fiatCurrency: string | null;
    walletId: string | null;
    metadata: Record<string, unknown>;
    errorMessage?: string;
  };
}

/**
 * NATS headers of an integration event message, for the notifier's routing: whose it is and where its per-transaction
 * callback goes. The payload stays exactly the spec's webhook body.
 */
export const INTEGRATION_HEADERS = {
  organizationId: 'Ramp-Organization-Id',
  environment: 'Ramp-Environment',
  /** The key that initiated the transaction: its API secret signs the callback. */
  keyId: 'Ramp-Key-Id',
  callbackUrl: 'Ramp-Callback-Url',
  /** The transaction's id (its events' correlation id), carried into the notifier's log lines. */
  correlationId: 'Ramp-Correlation-Id',
  /** The x-request-id of the request that started the transaction, when there was one. */
  requestId: 'Ramp-Request-Id',
} as const;
