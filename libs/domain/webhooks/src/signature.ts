import { createHmac, randomBytes } from 'crypto';

/** Prefix of a webhook's signing secret; the rest is base64 of 32 random bytes (the Standard Webhooks format). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The spec's `x-service-signature`: lowercase hex HMAC-SHA256 of the raw body, keyed with the secret as written. */
export function hexSignature(rawBody: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/**
 * The key of the Standard Webhooks signature: for a `whsec_` secret the bytes its base64 part decodes to (so the
 * standardwebhooks libraries verify it as is); for any other secret (an API secret signing a callback) its UTF-8 bytes.
 */
export function standardWebhooksKey(secret: string): Buffer {
  return secret.startsWith(WEBHOOK_SECRET_PREFIX) ? Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` (Standard Webhooks). */
export function standardWebhooksSignature(id: string, timestampSeconds: number, rawBody: string | Buffer, secret: string): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret)).update(`${id}.${timestampSeconds}.`).update(rawBody).digest('base64');
  return `v1,${mac}`;
}

export interface DeliveryHeaderInput {
  /** The delivery's id: the same on every attempt of it, so that receivers can drop replays (`webhook-id`). */
  deliveryId: string;
  /** The event's id, the same for every webhook that receives it (`x-service-event-id`). */
  eventId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** When this attempt is sent. */
  now: Date;
  rawBody: string;
  secret: string;
}

/** Every header of a delivery attempt besides content type and user agent (DESIGN.md §4). */
export function deliveryHeaders(input: DeliveryHeaderInput): Record<string, string> {
  const timestamp = Math.floor(input.now.getTime() / 1000);
  return {
    'x-service-signature': hexSignature(input.rawBody, input.secret),
    'x-service-event-id': input.eventId,
    'x-service-delivery-attempt': String(input.attempt),
    'webhook-id': input.deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardWebhooksSignature(input.deliveryId, timestamp, input.rawBody, input.secret),
  };
}
