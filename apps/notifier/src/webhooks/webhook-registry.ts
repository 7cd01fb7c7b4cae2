import type { Pool } from 'pg';
import {
  AppError,
  DELIVERY_STATUSES,
  generationOf,
  invalidField,
  isIdOf,
  newId,
  pageMeta,
  parsePage,
  type DeliveryView,
  type Tenant,
  type WebhookCreate,
  type WebhookDeliveries,
  type WebhookView,
} from '@ramp/contracts';
import { withTransaction } from '@ramp/database';
import type { SecretBox } from '@ramp/keys';
import { MAX_ATTEMPTS, MAX_WEBHOOKS_PER_TENANT, newWebhookSecret, parseEventSelection, TEST_EVENT_NAME, type AllowedHosts } from '@ramp/webhooks';
import { DELIVERIES_CHANNEL } from '../deliveries/delivery-store';
import type { TargetDns } from './target-dns';
import { checkWebhookUrl } from './target-resolution';

interface WebhookRow {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  is_active: boolean;
  created_at: Date;
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event: string;
  event_id: string;
  transaction_id: string | null;
  status: DeliveryView['status'];
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
  attempts: { attempt: number; at: string; statusCode: number | null; durationMs: number; error: string | null }[];
}

function webhookView(row: WebhookRow): WebhookView {
  return { id: row.id, url: row.url, events: row.events, isActive: row.is_active, description: row.description, createdAt: row.created_at.toISOString() };
}

function deliveryView(row: DeliveryRow): DeliveryView {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    event: row.event,
    eventId: row.event_id,
    transactionId: row.transaction_id,
    status: row.status,
    attempts: row.attempts.map((attempt) => ({ ...attempt, at: new Date(attempt.at).toISOString() })),
    nextAttemptAt: row.status === 'pending' ? (row.next_attempt_at?.toISOString() ?? null) : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const DELIVERY_COLUMNS = `d.id, d.webhook_id, d.event, d.event_id, d.transaction_id, d.status, d.next_attempt_at, d.created_at, d.updated_at,
  coalesce((select json_agg(json_build_object('attempt', a.attempt, 'at', a.started_at, 'statusCode', a.status_code, 'durationMs', a.duration_ms, 'error', a.error) order by a.attempt)
              from notifier.delivery_attempts a where a.delivery_id = d.id), '[]'::json) as attempts`;

/** Webhook registrations of a tenant and the operations on their deliveries (DESIGN.md §4). */
/**
 * Registrations of one tenant whose hosts a replica resolves at once: a tenant naming hosts whose nameserver never
 * answers waits for its own lookups, never more than this many in flight.
 */
export const MAX_LOOKUPS_PER_TENANT = 4;

export class WebhookRegistry {
  /** Lookups in flight per tenant (`organization:environment`) on this replica. */
  private readonly lookups = new Map<string, number>();

  constructor(
    private readonly pool: Pool,
    private readonly box: SecretBox,
    private readonly allowed: AllowedHosts,
    private readonly dns: Pick<TargetDns, 'resolve'>,
  ) {}

  async create(tenant: Tenant, request: WebhookCreate.Request): Promise<WebhookView> {
    if (typeof request.url !== 'string' || request.url === '') throw invalidField('url', 'is required');
    // The limit first (checked again under the lock below): a tenant at its limit never makes the notifier resolve a
    // name, however many registrations it sends.
    if ((await this.count(this.pool, tenant)) >= MAX_WEBHOOKS_PER_TENANT) throw limitReached();
    const url = await this.resolved(tenant, request.url);
    const selection = parseEventSelection(request.events);
    if (!selection.ok) throw invalidField('events', selection.message);
    const description = request.description === undefined || request.description === null ? null : request.description;
    if (description !== null && (typeof description !== 'string' || description.length > 500))
      throw invalidField('description', 'must be a string of at most 500 characters');
    const secret = newWebhookSecret();
    const row = await withTransaction(this.pool, async (tx) => {
      // One registration at a time per tenant, so that the limit holds under concurrent requests.
      await tx.query(`select pg_advisory_xact_lock(hashtext('notifier.webhooks:' || $1 || ':' || $2))`, [tenant.organizationId, tenant.environment]);
      if ((await this.count(tx, tenant)) >= MAX_WEBHOOKS_PER_TENANT) throw limitReached();
      const inserted = await tx.query<WebhookRow>(
        `insert into notifier.webhooks (id, organization_id, environment, generation, url, events, description, secret_sealed, is_active, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, true, now())
         returning id, url, events, description, is_active, created_at`,
        [newId('wh'), tenant.organizationId, tenant.environment, generationOf(tenant), url, selection.events, description, this.box.seal(secret)],
      );
      return inserted.rows[0]!;
    });
    return { ...webhookView(row), secret };
  }

  /** The URL once its host is checked (checkWebhookUrl), within the tenant's lookups in flight (MAX_LOOKUPS_PER_TENANT). */
  private async resolved(tenant: Tenant, url: string): Promise<string> {
    const key = `${tenant.organizationId}:${tenant.environment}`;
    const inFlight = this.lookups.get(key) ?? 0;
    if (inFlight >= MAX_LOOKUPS_PER_TENANT) {
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `${MAX_LOOKUPS_PER_TENANT} webhook registrations of this organization are still resolving their hosts; try again in a few seconds`,
      );
    }
    this.lookups.set(key, inFlight + 1);
    try {
      return await checkWebhookUrl(url, this.allowed, this.dns);
    } finally {
      const left = (this.lookups.get(key) ?? 1) - 1;
      if (left > 0) this.lookups.set(key, left);
      else this.lookups.delete(key);
    }
  }

  /** The tenant's registered webhooks, in its current sandbox generation. */
  private async count(db: Pick<Pool, 'query'>, tenant: Tenant): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      `select count(*)::int as n from notifier.webhooks where organization_id = $1 and environment = $2 and generation = $3 and deleted_at is null`,
      [tenant.organizationId, tenant.environment, generationOf(tenant)],
    );
    return rows[0]?.n ?? 0;
  }

  async list(tenant: Tenant): Promise<WebhookView[]> {
    const result = await this.pool.query<WebhookRow>(
      `select id, url, events, description, is_active, created_at from notifier.webhooks
        where organization_id = $1 and environment = $2 and generation = $3 and deleted_at is null order by created_at, id`,
      [tenant.organizationId, tenant.environment, generationOf(tenant)],
    );
    return result.rows.map(webhookView);
  }

  /** Deletes a webhook: it receives nothing more (its pending deliveries are cancelled; one being sent may still arrive). */
  async delete(tenant: Tenant, webhookId: string): Promise<{ id: string; deleted: true }> {
    await withTransaction(this.pool, async (tx) => {
      const deleted = await tx.query(
        `update notifier.webhooks set deleted_at = now(), is_active = false
          where id = $1 and organization_id = $2 and environment = $3 and generation = $4 and deleted_at is null`,
        [this.webhookId(webhookId), tenant.organizationId, tenant.environment, generationOf(tenant)],
      );
      if (deleted.rowCount !== 1) throw this.webhookNotFound(webhookId);
      await tx.query(
        `update notifier.deliveries set status = 'cancelled', next_attempt_at = null, updated_at = now() where webhook_id = $1 and status = 'pending'`,
        [webhookId],
      );
    });
    return { id: webhookId, deleted: true };
  }

  async deliveries(tenant: Tenant, request: WebhookDeliveries.Request): Promise<WebhookDeliveries.Response> {
    const webhookId = await this.ownWebhook(tenant, request.webhookId);
    const page = parsePage(request);
    const status = request.status === undefined || request.status === '' ? null : request.status;
    if (status !== null && !(DELIVERY_STATUSES as readonly string[]).includes(status))
      throw invalidField('status', `must be one of ${DELIVERY_STATUSES.join(', ')}`);
    const [rows, total] = await Promise.all([
      this.pool.query<DeliveryRow>(
        `select ${DELIVERY_COLUMNS} from notifier.deliveries d
          where d.webhook_id = $1 and ($2::text is null or d.status = $2)
          order by d.created_at desc, d.id desc limit $3 offset $4`,
        [webhookId, status, page.limit, page.offset],
      ),
      this.pool.query<{ n: number }>(`select count(*)::int as n from notifier.deliveries where webhook_id = $1 and ($2::text is null or status = $2)`, [
        webhookId,
        status,
      ]),
    ]);
    return { data: rows.rows.map(deliveryView), meta: pageMeta(page, total.rows[0]?.n ?? 0) };
  }

  /**
   * Resends one delivery now. A pending one is simply brought forward; a finished one (succeeded or failed) gets one
   * more attempt, and if that fails it is failed again (no new schedule).
   */
  async retry(tenant: Tenant, webhookId: string, deliveryId: string): Promise<DeliveryView> {
    const own = await this.ownWebhook(tenant, webhookId);
    const updated = await this.pool.query(
      `update notifier.deliveries
          set max_attempts = case when status = 'pending' then max_attempts else attempts + 1 end,
              status = 'pending', next_attempt_at = now(), updated_at = now()
        where id = $1 and webhook_id = $2 and status <> 'cancelled'`,
      [deliveryId, own],
    );
    if (updated.rowCount !== 1) throw new AppError('DELIVERY_NOT_FOUND', `Delivery ${String(deliveryId).slice(0, 40)} not found for webhook ${own}`);
    await this.pool.query(`select pg_notify($1, '')`, [DELIVERIES_CHANNEL]);
    return this.delivery(deliveryId);
  }

  /** Queues a signed `webhook.test` event to this webhook only: `{ event, timestamp, data: { webhookId, message, metadata: { test: true } } }`. */
  async test(tenant: Tenant, webhookId: string): Promise<DeliveryView> {
    const { id: own, url } = await this.ownWebhookWithUrl(tenant, webhookId);
    const deliveryId = newId('dlv');
    const now = new Date();
    const body = JSON.stringify({
      event: TEST_EVENT_NAME,
      timestamp: now.toISOString(),
      data: { webhookId: own, message: 'A test delivery: your endpoint is reachable and can verify our signatures.', metadata: { test: true } },
    });
    await withTransaction(this.pool, async (tx) => {
      await tx.query(
        `insert into notifier.deliveries (id, organization_id, environment, webhook_id, target_url, key_id, event_id, event, transaction_id, body, status, attempts, max_attempts, next_attempt_at, created_at, updated_at)
         values ($1, $2, $3, $4, $5, null, $6, $7, null, $8, 'pending', 0, $9, $10, $10, $10)`,
        [deliveryId, tenant.organizationId, tenant.environment, own, url, `test:${deliveryId}`, TEST_EVENT_NAME, body, MAX_ATTEMPTS, now],
      );
      await tx.query(`select pg_notify($1, '')`, [DELIVERIES_CHANNEL]);
    });
    return this.delivery(deliveryId);
  }

  private async delivery(deliveryId: string): Promise<DeliveryView> {
    const result = await this.pool.query<DeliveryRow>(`select ${DELIVERY_COLUMNS} from notifier.deliveries d where d.id = $1`, [deliveryId]);
    if (!result.rows[0]) throw new AppError('INTERNAL_ERROR', 'delivery vanished');
    return deliveryView(result.rows[0]);
  }

  /** The id of a live webhook of the tenant; NOT_FOUND for a malformed, unknown, deleted or another tenant's id. */
  private async ownWebhook(tenant: Tenant, webhookId: unknown): Promise<string> {
    return (await this.ownWebhookWithUrl(tenant, webhookId)).id;
  }

  private async ownWebhookWithUrl(tenant: Tenant, webhookId: unknown): Promise<{ id: string; url: string }> {
    const id = this.webhookId(webhookId);
    const found = await this.pool.query<{ url: string }>(
      `select url from notifier.webhooks where id = $1 and organization_id = $2 and environment = $3 and generation = $4 and deleted_at is null`,
      [id, tenant.organizationId, tenant.environment, generationOf(tenant)],
    );
    if (!found.rows[0]) throw this.webhookNotFound(id);
    return { id, url: found.rows[0].url };
  }

  private webhookId(value: unknown): string {
    if (!isIdOf('wh', value)) throw this.webhookNotFound(value);
    return value;
  }

  private webhookNotFound(value: unknown): AppError {
    return new AppError('WEBHOOK_NOT_FOUND', `Webhook ${String(value).slice(0, 40)} not found`);
  }
}

function limitReached(): AppError {
  return invalidField(
    'url',
    `at most ${MAX_WEBHOOKS_PER_TENANT} webhooks can be registered; delete one first (DELETE /webhooks/{webhookId})`,
    'WEBHOOK_LIMIT_REACHED',
  );
}
