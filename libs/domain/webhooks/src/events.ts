import { WEBHOOK_EVENT_NAMES } from '@ramp/contracts';

/** The spec's limit: at most 10 webhook URLs per API key (per tenant: keys of one organization share them). */
export const MAX_WEBHOOKS_PER_TENANT = 10;

/** The event of `POST /webhooks/{id}/test`: sent to that webhook only, never from a transaction. */
export const TEST_EVENT_NAME = 'webhook.test';

/**
 * The `events` of a registration, checked: a non-empty array of distinct event names (the spec's, and the wallets')
 * or `*` (alone or not). Returns the
 * error message for INVALID_REQUEST on `events`, or the normalized list.
 */
export function parseEventSelection(value: unknown): { ok: true; events: string[] } | { ok: false; message: string } {
  if (!Array.isArray(value)) return { ok: false, message: 'must be an array of event names or "*"' };
  if (value.length === 0) return { ok: false, message: 'must name at least one event (or "*" for all)' };
  if (value.length > WEBHOOK_EVENT_NAMES.length + 1) return { ok: false, message: `must have at most ${WEBHOOK_EVENT_NAMES.length + 1} entries` };
  const events: string[] = [];
  for (const [index, entry] of value.entries()) {
    if (typeof entry !== 'string') return { ok: false, message: `[${index}] must be a string` };
    if (entry !== '*' && !(WEBHOOK_EVENT_NAMES as readonly string[]).includes(entry)) {
      return { ok: false, message: `[${index}] "${entry.slice(0, 40)}" is not an event; use one of ${WEBHOOK_EVENT_NAMES.join(', ')} or "*"` };
    }
    if (!events.includes(entry)) events.push(entry);
  }
  return { ok: true, events };
}
