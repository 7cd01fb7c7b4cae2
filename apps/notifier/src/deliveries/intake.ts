import type { JsMsg } from 'nats';
import { ENVIRONMENTS, INTEGRATION_HEADERS, type Environment, type IntegrationEvent } from '@ramp/contracts';
import { checkTargetUrl, type AllowedHosts } from '@ramp/webhooks';
import type { IncomingEvent } from './delivery-store';

/**
 * Reads an integration event message: the payload's exact bytes, its id (the message id: the domain event's id), and
 * the routing the publisher put in headers. Throws for a message that can never be routed (it is dead-lettered).
 */
export function decodeIntegrationMessage(message: JsMsg): IncomingEvent {
  const body = message.string();
  const payload = JSON.parse(body) as Partial<IntegrationEvent>;
  const headers = message.headers;
  const eventId = headers?.get('Nats-Msg-Id') || String(payload.data?.metadata?.['eventId'] ?? '');
  const organizationId = headers?.get(INTEGRATION_HEADERS.organizationId) ?? '';
  const environment = headers?.get(INTEGRATION_HEADERS.environment) as Environment;
  if (!eventId || typeof payload.event !== 'string') throw new Error('an integration event without an id or an event name');
  if (!organizationId || !ENVIRONMENTS.includes(environment)) throw new Error(`integration event ${eventId} has no tenant headers`);
  return {
    eventId,
    type: payload.event,
    body,
    transactionId: payload.data?.transactionId ?? null,
    organizationId,
    environment,
    generation: Number(headers?.get(INTEGRATION_HEADERS.generation) || 0),
    keyId: headers?.get(INTEGRATION_HEADERS.keyId) || null,
    callbackUrl: headers?.get(INTEGRATION_HEADERS.callbackUrl) || null,
    createdAt: typeof payload.timestamp === 'string' ? payload.timestamp : undefined,
    metadata: {
      correlationId: headers?.get(INTEGRATION_HEADERS.correlationId) || undefined,
      requestId: headers?.get(INTEGRATION_HEADERS.requestId) || undefined,
    },
  };
}

/** The event without its callback URL if that no longer passes (checked at initiation already; the allow list changed). */
export function withAllowedCallback(event: IncomingEvent, allowed: AllowedHosts): IncomingEvent {
  return event.callbackUrl && !checkTargetUrl(event.callbackUrl, allowed).ok ? { ...event, callbackUrl: null } : event;
}
