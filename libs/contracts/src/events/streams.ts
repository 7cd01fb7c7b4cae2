import type { FailureReason } from '../errors/reasons';
import { TRANSACTION_OUTCOMES, TRANSACTION_TYPES, type TransactionOutcome, type TransactionType } from '../transactions/transactions';

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

/** The chain service's events: `events.chain.<type>`, e.g. `events.chain.deposit.credited` (CHAIN_EVENT_TYPES). */
export function chainEvents(namespace = ''): EventStreamName {
  return namespace
    ? { stream: `CHAIN_EVENTS_${namespace.toUpperCase()}`, subjectPrefix: `${namespace}.events.chain` }
    : { stream: 'CHAIN_EVENTS', subjectPrefix: 'events.chain' };
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

/** A logical stream: its name and subjects under an EVENTS_NAMESPACE (`rampEvents`, `integrationEvents`, ...). */
export type EventStreamOf = (namespace?: string) => EventStreamName;

/** Every stream the platform's services consume, for a transport to resolve a handler's pattern to its stream. */
export const EVENT_STREAMS: readonly EventStreamOf[] = [rampEvents, swapTransferEvents, integrationEvents, chainEvents];

/**
 * Every subject of a logical stream as production names it (`events.ramp.>`): the pattern of a JetStream handler, which
 * the transport resolves to the namespaced stream and subject filter when it binds the handler.
 */
export function everyEventOf(stream: EventStreamOf): string {
  return `${stream().subjectPrefix}.>`;
}

export type IntegrationEventName = `${TransactionType}.${TransactionOutcome}`;

/**
 * The spec's eight event names, `<type>.<outcome>` in its order (`onramp.completed`, `onramp.failed`, `offramp.completed`,
 * …): what webhooks subscribe to and what the integration stream carries.
 */
export const INTEGRATION_EVENT_NAMES: readonly IntegrationEventName[] = TRANSACTION_TYPES.flatMap((type) =>
  TRANSACTION_OUTCOMES.map((outcome): IntegrationEventName => `${type}.${outcome}`),
);

/** Webhook events of a managed wallet, beside the spec's eight transaction events. */
export const WALLET_EVENT_NAMES = ['wallet.deposit_reversed'] as const;
export type WalletEventName = (typeof WALLET_EVENT_NAMES)[number];

/** Webhook events of an off-ramp beside its end (`offramp.completed`, `offramp.failed`): what happened after it. */
export const OFFRAMP_EVENT_NAMES = ['offramp.payout_reversed'] as const;
export type OfframpEventName = (typeof OFFRAMP_EVENT_NAMES)[number];

/**
 * Every event a webhook may subscribe to: the spec's eight (`*` takes them), then those added within `/v1`, which go
 * only to webhooks that list them by name: the wallets', the off-ramps'.
 */
export const WEBHOOK_EVENT_NAMES: readonly (IntegrationEventName | WalletEventName | OfframpEventName)[] = [
  ...INTEGRATION_EVENT_NAMES,
  ...WALLET_EVENT_NAMES,
  ...OFFRAMP_EVENT_NAMES,
];

/**
 * `offramp.payout_reversed`: the bank sent back the Naira of a live off-ramp that was paid out (its bank partner's
 * `transfer.reversed`, confirmed with the partner). The off-ramp stays `completed`, its payout is held for the
 * platform's operators, who pay it again or settle it with the integrator; the Naira is back with the platform.
 */
export interface OfframpPayoutReversedEvent {
  event: 'offramp.payout_reversed';
  timestamp: string;
  data: {
    transactionId: string;
    /** The integrator's reference from the initiation, when one was given. */
    reference?: string;
    type: 'offramp';
    /** The off-ramp's status, which the reversal does not change (`completed`, once paid). */
    status: 'pending' | 'completed' | 'failed';
    /** The NGN the bank sent back: the payout's amount. */
    payoutAmount: string;
    fiatCurrency: 'NGN';
    /** The payout's reference at the bank partner. */
    payoutReference: string;
    /** `eventId` lets a receiver deduplicate (the off-ramp's event id). */
    metadata: { eventId: string };
  };
}

/**
 * `wallet.deposit_reversed`: a reorganisation of the chain removed a deposit that had been credited to a managed wallet,
 * so its credit is taken back (from the available balance; what the wallet no longer held is recorded as owed to the
 * platform, never a negative balance). If the chain takes the same transfer back in, it is credited again.
 */
export interface WalletDepositReversedEvent {
  event: 'wallet.deposit_reversed';
  timestamp: string;
  data: {
    walletId: string;
    chain: string;
    /** The wallet's address, where the deposit had arrived. */
    address: string;
    tokenSymbol: string;
    /** What was credited and is now taken back. */
    amount: string;
    /** The deposit's transaction, which the chain no longer holds. */
    transactionHash: string;
    from: string;
    blockNumber: string;
    /** `eventId` lets a receiver deduplicate (the chain event's id); `depositId` names the deposit. */
    metadata: { eventId: string; depositId: string };
  };
}

/**
 * The spec's delivery payload. A field with no value is absent, never null; `data.errorMessage` and `data.failureReason`
 * are added on failed events (the spec leaves them open), `data.payoutAmount` on off-ramps.
 */
export interface IntegrationEvent {
  event: IntegrationEventName;
  timestamp: string;
  data: {
    transactionId: string;
    reference?: string;
    type: TransactionType;
    status: TransactionOutcome;
    amount: string;
    tokenSymbol: string;
    chain: string;
    transactionHash?: string;
    fiatAmount?: string;
    fiatCurrency?: string;
    /** Off-ramps: the NGN the bank account received (`fiatAmount` less the fees). */
    payoutAmount?: string;
    walletId?: string;
    /** `eventId` (the domain event's id) lets a receiver deduplicate; the SDK's WebhookEvent types it too. */
    metadata: { eventId: string; [key: string]: unknown };
    /** Failed events: what happened, for people. */
    errorMessage?: string;
    /** Failed events: why, for programs (FAILURE_REASONS). */
    failureReason?: FailureReason;
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
  /** The sandbox generation of a test tenant (see Tenant.generation), when it is not 0: webhooks of other generations get nothing. */
  generation: 'Ramp-Sandbox-Generation',
} as const;
