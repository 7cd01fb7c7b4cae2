import type { PaginationMeta } from '../errors/envelope';
import { rpc } from '../rpc/rpc';

/** The spec's webhook registration. `secret` only in the answer to its creation. */
export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  isActive: boolean;
  description: string | null;
  createdAt: string;
  secret?: string;
}

/** One attempt to send a delivery. */
export interface DeliveryAttemptView {
  attempt: number;
  at: string;
  /** The receiver's HTTP status, or null when none came (timeout, refused connection, TLS error, refused target). */
  statusCode: number | null;
  durationMs: number;
  /** Why the attempt failed, or null when it succeeded. */
  error: string | null;
}

/** pending: waiting for its next attempt (or being sent); succeeded; failed: every retry failed; cancelled: the webhook was deleted. */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;

/** One event sent to one webhook: its state and every attempt so far (DESIGN.md §4). */
export interface DeliveryView {
  id: string;
  webhookId: string;
  event: string;
  eventId: string;
  transactionId: string | null;
  status: (typeof DELIVERY_STATUSES)[number];
  attempts: DeliveryAttemptView[];
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export namespace WebhookCreate {
  export interface Request {
    url: string;
    events: string[];
    description?: string;
  }
  export const contract = rpc<Request, WebhookView>('notifier.v1.webhooks.create');
}

export namespace WebhookList {
  export const contract = rpc<Record<string, never>, WebhookView[]>('notifier.v1.webhooks.list');
}

export namespace WebhookDelete {
  export interface Request {
    webhookId: string;
  }
  export const contract = rpc<Request, { id: string; deleted: true }>('notifier.v1.webhooks.delete');
}

export namespace WebhookDeliveries {
  export interface Request {
    webhookId: string;
    page?: string;
    limit?: string;
    status?: string;
  }
  export interface Response {
    data: DeliveryView[];
    meta: PaginationMeta;
  }
  export const contract = rpc<Request, Response>('notifier.v1.webhooks.deliveries');
}

export namespace WebhookRetry {
  export interface Request {
    webhookId: string;
    deliveryId: string;
  }
  export const contract = rpc<Request, DeliveryView>('notifier.v1.webhooks.retry');
}

export namespace WebhookTest {
  export interface Request {
    webhookId: string;
  }
  export const contract = rpc<Request, DeliveryView>('notifier.v1.webhooks.test');
}

/**
 * The API secret of a key, still sealed (SecretBox, SECRETS_ENCRYPTION_KEY): the notifier signs per-transaction
 * callbacks with the secret of the key that initiated the transaction. Answered by the gateway, which owns the keys,
 * for a key of the caller's tenant only; the plaintext never crosses NATS.
 */
export namespace KeySigningSecret {
  export interface Request {
    keyId: string;
  }
  export interface Response {
    keyId: string;
    secretSealed: string;
  }
  export const contract = rpc<Request, Response>('gateway.v1.keys.signing-secret');
}
