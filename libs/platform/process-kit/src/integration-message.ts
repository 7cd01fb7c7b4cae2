import { generationOf, INTEGRATION_HEADERS, type IntegrationEvent } from '@ramp/contracts';
import type { StoredEvent } from '@ramp/event-store';
import { integrationEventOf, viewAtVersion, type AnyTransactionKind } from '@ramp/transactions';

/** What the integration publisher puts on the stream for one terminal domain event. */
export interface IntegrationMessage {
  /** The payload: exactly the webhook body; its `event` is the subject's last two tokens. */
  payload: IntegrationEvent;
  /** NATS headers (INTEGRATION_HEADERS): whose transaction it is, where its callback goes, and its trace ids. */
  headers: Record<string, string>;
  /** `Nats-Msg-Id`: the terminal domain event's id, so that a republication is dropped as a duplicate. */
  msgID: string;
}

/** A terminal domain event (`<type>.completed` or `<type>.failed`): the only ones with an integration event. */
export const isTerminalEvent = (type: string): boolean => /\.(completed|failed)$/.test(type);

/**
 * The integration message of `event`, from its transaction's `history` (its stream's events, at least up to it),
 * pure; undefined for an event that does not end a transaction of `kinds`.
 */
export function integrationMessageOf(
  kinds: readonly AnyTransactionKind[],
  history: readonly StoredEvent[],
  event: StoredEvent,
): IntegrationMessage | undefined {
  if (!isTerminalEvent(event.type)) return undefined;
  const view = viewAtVersion(kinds, history, event.streamVersion);
  const payload = view && integrationEventOf(view, event.type, event.eventId, event.createdAt);
  if (!payload) return undefined;
  // Routing for the notifier travels in headers, so that the payload is exactly the webhook body.
  const first = history[0];
  // The initiating request's tenant: its key signs the callback, whoever caused the terminal event.
  const { tenant } = first?.metadata ?? event.metadata;
  const headers: Record<string, string> = {
    [INTEGRATION_HEADERS.organizationId]: tenant.organizationId,
    [INTEGRATION_HEADERS.environment]: tenant.environment,
    [INTEGRATION_HEADERS.keyId]: tenant.keyId,
  };
  const callbackUrl = (first?.data as { callbackUrl?: string | null } | undefined)?.callbackUrl;
  if (callbackUrl) headers[INTEGRATION_HEADERS.callbackUrl] = callbackUrl;
  if (generationOf(tenant) > 0) headers[INTEGRATION_HEADERS.generation] = String(generationOf(tenant));
  // For the notifier's logs: the transaction, and the request that started it.
  headers[INTEGRATION_HEADERS.correlationId] = event.metadata.correlationId;
  const requestId = first?.metadata.requestId;
  if (requestId) headers[INTEGRATION_HEADERS.requestId] = requestId;
  return { payload, headers, msgID: event.eventId };
}
