import { createHash } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { Counter } from 'prom-client';
import { Config } from '@ramp/config';
import { withTransaction } from '@ramp/database';
import { AppError, invalidField, type PartnerEventReceive } from '@ramp/contracts';
import { Metrics } from '@ramp/observability';
import { isFlutterwaveHashValid, isPaystackSignatureValid } from '@ramp/providers';
import { LOGGER, PG_POOL, type Logger } from '@ramp/service-kit';

/** What processing an event came to: it changed a transaction, or it names nothing the platform knows (yet). */
export type PartnerEventOutcome = 'applied' | 'unmatched';

/** A recorded partner event, as a handler is given it. */
export interface PartnerEvent {
  id: string;
  provider: string;
  event: string;
  reference: string | null;
  body: { event: string; data: Record<string, unknown> };
}

/**
 * Processes one kind of event (`transfer.success`...), in the transaction that marks it (`client`), so that its effect
 * and the mark commit together; idempotent all the same. `unmatched`: it names nothing known yet (the payout's record
 * may not be committed yet), so it is tried again later.
 */
export type PartnerEventHandler = (event: PartnerEvent, client: PoolClient) => Promise<PartnerEventOutcome>;

/** Events handled per pass, and the pause between passes that look for what is due again or a crash left. */
const BATCH = 50;
const SWEEP_MS = 5_000;
/** An unmatched event is tried again after 30 s, 1 min, 2 min... (at most an hour apart), and closed after this many. */
const UNMATCHED_TRIES = 12;
/** A handler that throws is retried the same way, and the event parked for an operator after this many failures. */
const FAILED_TRIES = 10;
/** An event of a kind nothing handles (yet) is looked at again hourly, never closed: a later release may handle it. */
const UNHANDLED_RETRY_S = 3600;

const backoffSeconds = (attempts: number) => Math.min(3600, 30 * 2 ** attempts);

/**
 * Bank partners' events, received from the gateway: the signature checked over the raw body with the partner's secret
 * key (PARTNER_SIGNATURE_INVALID otherwise, nothing recorded), the event recorded once (a resend is the same
 * `event_key`: the event, the partner's reference of the transfer or charge, or its id, or else the body's hash, and
 * its status; a resend under the same key with another body is reported), answered, then processed from the record by
 * the handler of its kind, each event in a savepoint of its own, on this replica at once and by any replica's pass
 * every 5 s. Nothing is dropped: an event nothing handles yet is looked at hourly (`unhandled`); one naming nothing
 * known is tried again with backoff and closed as `unmatched` after 12 tries, logged for an operator; one whose handler
 * throws is retried and parked (`parked`) after 10 failures.
 */
@Injectable()
export class PartnerEvents implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly handlers = new Map<string, PartnerEventHandler>();
  private readonly paystackSecret: string;
  private readonly flutterwaveHash: string;
  private readonly received: Counter<'provider' | 'event' | 'outcome'>;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(Config) config: Config,
    @Inject(Metrics) metrics: Metrics,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.paystackSecret = config.secret('paystackSecretKey');
    this.flutterwaveHash = config.secret('flutterwaveWebhookHash');
    this.received = new Counter({
      name: 'ramp_partner_events_total',
      help: "Bank partners' events by provider, event and outcome: recorded, duplicate (a resend), duplicate_differs (a resend with another body: the first kept), refused (bad signature), applied, unmatched_retry, unmatched (closed: kept for an operator), unhandled (nothing handles its kind yet), failed (a handler threw; retried), parked.",
      labelNames: ['provider', 'event', 'outcome'],
      registers: [metrics.registry],
    });
  }

  /** Registers what processes one kind of event. */
  handle(event: string, handler: PartnerEventHandler): void {
    this.handlers.set(event, handler);
  }

  async receive(request: PartnerEventReceive.Request): Promise<PartnerEventReceive.Response> {
    if (!this.authentic(request)) {
      this.received.inc({ provider: request.provider, event: 'unknown', outcome: 'refused' });
      throw new AppError('PARTNER_SIGNATURE_INVALID', `The event's signature is not ${request.provider}'s: nothing is recorded`);
    }
    const body = parseEvent(request.rawBody);
    const reference = referenceOf(body.data);
    const sha256 = createHash('sha256').update(request.rawBody).digest('hex');
    // The event, what it is about (its reference, else its id, else its very body), and its status (Flutterwave's
    // transfer.completed carries success and failure alike).
    const about = reference ?? (typeof body.data.id === 'string' || typeof body.data.id === 'number' ? `id:${body.data.id}` : `sha256:${sha256}`);
    const key = `${body.event}:${about}:${typeof body.data.status === 'string' ? body.data.status : ''}`;
    const inserted = await this.pool.query<{ id: string; body_sha256: string | null; inserted: boolean }>(
      `with added as (
         insert into ramp.partner_events (provider, event_key, event, reference, body, body_sha256) values ($1, $2, $3, $4, $5, $6)
         on conflict (provider, event_key) do nothing returning id, body_sha256, true as inserted)
       select * from added
       union all
       select id, body_sha256, false from ramp.partner_events where provider = $1 and event_key = $2 and not exists (select from added)`,
      [request.provider, key, body.event, reference, request.rawBody, sha256],
    );
    const row = inserted.rows[0];
    const recorded = row?.inserted === true;
    if (!recorded && row && row.body_sha256 !== null && row.body_sha256 !== sha256) {
      // Same event, reference and status, another body: kept as the first one, and shown to an operator.
      this.logger.warn(
        { provider: request.provider, event: body.event, reference, partnerEventId: row.id },
        'a bank partner resent an event with another body: the first one is kept',
      );
    }
    const differs = !recorded && row?.body_sha256 !== null && row?.body_sha256 !== sha256;
    this.received.inc({ provider: request.provider, event: body.event, outcome: recorded ? 'recorded' : differs ? 'duplicate_differs' : 'duplicate' });
    if (recorded) this.kick();
    return { recorded };
  }

  /** Paystack: the HMAC-SHA512 of the raw body with its secret key; Flutterwave: `verif-hash` equal to the dashboard's secret hash. */
  private authentic(request: PartnerEventReceive.Request): boolean {
    if (request.provider === 'paystack') return isPaystackSignatureValid(request.rawBody, request.signature, this.paystackSecret);
    if (request.provider === 'flutterwave') return isFlutterwaveHashValid(request.signature, this.flutterwaveHash);
    throw invalidField('provider', 'must be paystack or flutterwave');
  }

  onApplicationBootstrap(): void {
    const sweep = () => {
      this.kick();
      this.timer = setTimeout(sweep, SWEEP_MS);
      this.timer.unref();
    };
    sweep();
  }

  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.timer);
    await this.running;
  }

  /** Processes what is recorded and not processed, once at a time on this replica; a kick while it runs runs it again. */
  kick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          while ((await this.processBatch()) === BATCH);
        } catch (error) {
          this.logger.warn({ err: error }, "bank partners' events could not be processed; the next pass tries again");
        }
      } while (this.again);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * One transaction: claims up to BATCH due events (skipping another replica's), and handles each in a savepoint of its
   * own, so that one failing handler rolls back its own effect only, and the others' marks commit.
   */
  private async processBatch(): Promise<number> {
    // Through withTransaction, which hears the error a checked-out connection emits when PostgreSQL drops it (a
    // restart): unheard, it killed the process.
    return withTransaction(this.pool, async (client) => {
      const claimed = await client.query<{
        id: string;
        provider: string;
        event: string;
        reference: string | null;
        body: PartnerEvent['body'];
        attempts: number;
      }>(
        `select id::text, provider, event, reference, body, attempts from ramp.partner_events
         where processed_at is null and next_attempt_at <= now() order by next_attempt_at, id limit ${BATCH} for update skip locked`,
      );
      for (const row of claimed.rows) await this.processOne(client, row);
      return claimed.rows.length;
    });
  }

  private async processOne(client: PoolClient, row: PartnerEvent & { attempts: number }): Promise<void> {
    const handler = this.handlers.get(row.event);
    const where = { provider: row.provider, event: row.event, reference: row.reference, partnerEventId: row.id };
    if (!handler) {
      if (row.attempts === 0) this.logger.warn(where, "a bank partner's event that nothing handles yet: kept, and looked at again hourly");
      this.received.inc({ provider: row.provider, event: row.event, outcome: 'unhandled' });
      await client.query(
        `update ramp.partner_events set attempts = attempts + 1, outcome = 'unhandled', next_attempt_at = now() + make_interval(secs => $2) where id = $1`,
        [row.id, UNHANDLED_RETRY_S],
      );
      return;
    }
    await client.query('savepoint partner_event');
    try {
      const outcome = await handler(row, client);
      await client.query('release savepoint partner_event');
      const closes = outcome === 'applied' || row.attempts + 1 >= UNMATCHED_TRIES;
      if (outcome === 'unmatched' && closes)
        this.logger.warn(where, "a bank partner's event names nothing the platform knows: closed as unmatched, kept for an operator");
      this.received.inc({ provider: row.provider, event: row.event, outcome: closes ? outcome : 'unmatched_retry' });
      await client.query(
        `update ramp.partner_events set attempts = attempts + 1, outcome = $2, last_error = null,
           processed_at = case when $3 then now() end, next_attempt_at = now() + make_interval(secs => $4) where id = $1`,
        [row.id, outcome, closes, backoffSeconds(row.attempts)],
      );
    } catch (error) {
      await client.query('rollback to savepoint partner_event');
      const parked = row.attempts + 1 >= FAILED_TRIES;
      this.logger.warn(
        { ...where, err: error },
        parked ? "a bank partner's event failed too often: parked for an operator" : "a bank partner's event failed; tried again later",
      );
      this.received.inc({ provider: row.provider, event: row.event, outcome: parked ? 'parked' : 'failed' });
      await client.query(
        `update ramp.partner_events set attempts = attempts + 1, last_error = $2, outcome = $3,
           next_attempt_at = case when $3 = 'parked' then 'infinity'::timestamptz else now() + make_interval(secs => $4) end where id = $1`,
        [row.id, error instanceof Error ? error.message.slice(0, 1000) : String(error), parked ? 'parked' : 'failed', backoffSeconds(row.attempts)],
      );
    }
  }
}

/** The event's JSON: an object with `event` and `data` objects, or INVALID_FIELD (a signed body we cannot read is a partner's defect, logged). */
function parseEvent(raw: string): PartnerEvent['body'] {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw invalidField('body', 'is not JSON');
  }
  if (!body || typeof body !== 'object' || typeof (body as { event?: unknown }).event !== 'string') throw invalidField('event', 'must be a string');
  const data = (body as { data?: unknown }).data;
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw invalidField('data', 'must be an object');
  return body as PartnerEvent['body'];
}

/** The partner's reference of what the event is about: a transfer's or a charge's `reference`. */
function referenceOf(data: Record<string, unknown>): string | null {
  const reference = data.reference;
  return typeof reference === 'string' && reference !== '' ? reference : null;
}
