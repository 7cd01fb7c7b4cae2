import { createHmac, timingSafeEqual } from 'crypto';
import type { components } from './generated/openapi';
import type { FailureReason } from './types';

/** The header carrying the lowercase hex HMAC-SHA256 of the raw body. */
export const SIGNATURE_HEADER = 'x-service-signature';

type Schemas = components['schemas'];

export type WebhookEventName = Schemas['WebhookEvent']['event'];

/**
 * The body of a delivery, as the API document describes it (WebhookEvent), with `failureReason` typed as the
 * FAILURE_REASONS it is and room in `metadata` for what a later version adds. Deliver-at-least-once: deduplicate by
 * `data.transactionId` plus `event` (or by `data.metadata.eventId`, the `x-service-event-id` header). A field with no
 * value is absent, never null: swaps and transfers have no `fiatAmount` or `fiatCurrency`; a transaction without a
 * caller reference has no `reference`.
 */
export type WebhookEvent = Omit<Schemas['WebhookEvent'], 'data'> & {
  data: Omit<Schemas['WebhookEventData'], 'failureReason' | 'metadata'> & {
    metadata: Schemas['WebhookEventMetadata'] & { [key: string]: unknown };
    /** On failed events: why, for programs to branch on. */
    failureReason?: FailureReason;
  };
};

/** A managed wallet's event (`wallet.deposit_reversed`), to webhooks that list it by name. */
export type WalletWebhookEvent = Schemas['WalletWebhookEvent'];

/** An off-ramp's event after its end (`offramp.payout_reversed`), to webhooks that list it by name. */
export type OfframpWebhookEvent = Schemas['OfframpWebhookEvent'];

/** What `POST /webhooks/{webhookId}/test` sends. */
export interface WebhookTestEvent {
  event: 'webhook.test';
  timestamp: string;
  data: { webhookId: string; message: string; metadata: { test: true } };
}

export type RawBody = string | Buffer | Uint8Array;

function isRawBody(value: unknown): value is RawBody {
  return typeof value === 'string' || value instanceof Uint8Array;
}

function single(header: string | string[] | null | undefined): string | undefined {
  const value = Array.isArray(header) ? (header.length === 1 ? header[0] : undefined) : header;
  return typeof value === 'string' ? value.trim() : undefined;
}

/**
 * Checks `x-service-signature`: the lowercase hex HMAC-SHA256 of the raw body (the exact bytes received, not a
 * re-serialized object), keyed with the secret as written (a webhook's `whsec_…`, or for per-transaction callbacks
 * the API secret `service_secret_…`). The comparison is in constant time. Never throws: anything malformed is false.
 */
export function verifyWebhookSignature(rawBody: RawBody, signatureHeader: string | string[] | null | undefined, secret: string): boolean {
  try {
    const given = single(signatureHeader);
    if (!isRawBody(rawBody) || typeof secret !== 'string' || secret === '' || given === undefined || !/^[0-9a-f]{64}$/i.test(given)) return false;
    const expected = createHmac('sha256', secret).update(rawBody).digest();
    return timingSafeEqual(expected, Buffer.from(given, 'hex'));
  } catch {
    return false;
  }
}

/** The Standard Webhooks headers of a delivery (https://www.standardwebhooks.com). */
export interface StandardWebhookHeaders {
  'webhook-id'?: string | string[] | null;
  'webhook-timestamp'?: string | string[] | null;
  'webhook-signature'?: string | string[] | null;
}

export interface StandardWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Now, in milliseconds since the epoch (for tests). */
  now?: number;
}

/** Header names in lower case from a plain object (Node's `req.headers`) or a fetch `Headers`. */
function readHeaders(headers: StandardWebhookHeaders | Headers | Record<string, unknown>): (name: string) => string | undefined {
  if (typeof (headers as Headers).get === 'function') return (name) => (headers as Headers).get(name)?.trim() ?? undefined;
  const lower = Object.fromEntries(Object.entries(headers as Record<string, unknown>).map(([name, value]) => [name.toLowerCase(), value]));
  return (name) => single(lower[name] as string | string[] | undefined);
}

/** The HMAC key of a secret: a `whsec_` secret's base64 part decoded; any other secret (an API secret) as UTF-8. */
function standardKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

/**
 * Checks the Standard Webhooks signature (`webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`,
 * space-separated when there are several) and refuses a `webhook-timestamp` outside the tolerance, so that a
 * captured delivery cannot be replayed later. Keep the `webhook-id`s seen within the tolerance to drop duplicates.
 * Never throws: anything malformed is false.
 */
export function verifyStandardWebhook(
  rawBody: RawBody,
  headers: StandardWebhookHeaders | Headers | Record<string, unknown>,
  secret: string,
  options: StandardWebhookOptions = {},
): boolean {
  try {
    const header = readHeaders(headers);
    const id = header('webhook-id');
    const timestamp = header('webhook-timestamp');
    const signatures = header('webhook-signature');
    if (!isRawBody(rawBody) || typeof secret !== 'string' || secret === '' || !id || !timestamp || !signatures || !/^\d{1,12}$/.test(timestamp)) return false;
    const now = options.now ?? Date.now();
    if (Math.abs(now / 1000 - Number(timestamp)) > (options.toleranceSeconds ?? 300)) return false;
    const expected = createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.`).update(rawBody).digest();
    let valid = false;
    for (const entry of signatures.split(' ')) {
      const [version, mac] = entry.split(',', 2);
      if (version !== 'v1' || !mac || !/^[A-Za-z0-9+/]{43}=$/.test(mac)) continue;
      // Every candidate is compared, so the time taken does not depend on which one matches.
      valid = timingSafeEqual(expected, Buffer.from(mac, 'base64')) || valid;
    }
    return valid;
  } catch {
    return false;
  }
}

/** A delivery whose signature did not verify. */
export class WebhookVerificationError extends Error {
  constructor(message = 'The webhook signature does not match the body') {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/**
 * Verifies `x-service-signature` and parses the body: the way to read a delivery in one step.
 * Throws WebhookVerificationError when the signature does not match (answer 400 and do not act on the body).
 */
export function constructWebhookEvent(
  rawBody: RawBody,
  signatureHeader: string | string[] | null | undefined,
  secret: string,
): WebhookEvent | WalletWebhookEvent | OfframpWebhookEvent | WebhookTestEvent {
  if (!verifyWebhookSignature(rawBody, signatureHeader, secret)) throw new WebhookVerificationError();
  const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  return JSON.parse(text) as WebhookEvent | WalletWebhookEvent | OfframpWebhookEvent | WebhookTestEvent;
}
