import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Pool } from 'pg';
import { Counter } from 'prom-client';
import { Config } from '@ramp/config';
import { AppError, invalidField, type PartnerEventReceive } from '@ramp/contracts';
import { Metrics } from '@ramp/observability';
import { isFlutterwaveHashValid, isPaystackSignatureValid } from '@ramp/providers';
import { LOGGER, PG_POOL, type Logger } from '@ramp/service-kit';

/** What processing an event came to: it changed a transaction, or it names nothing the platform knows (kept, reported). */
export type PartnerEventOutcome = 'applied' | 'unmatched';

/** A recorded partner event, as a handler is given it. */
export interface PartnerEvent {
  id: string;
  provider: string;
  event: string;
  reference: string | null;
  body: { event: string; data: Record<string, unknown> };
}

/** Processes one kind of event (`transfer.success`...): idempotent, since a crash between it and the mark repeats it. */
export type PartnerEventHandler = (event: PartnerEvent) => Promise<PartnerEventOutcome>;

/** Events handled per pass, and the pause between passes that look for what a crash left unprocessed. */
const BATCH = 50;
const SWEEP_MS = 5_000;

/**
 * Bank partners' events, received from the gateway: the signature checked over the raw body with the partner's secret
 * key (PARTNER_SIGNATURE_INVALID otherwise, nothing recorded), the event recorded once (a resend is the same
 * `event_key`: the event and the partner's reference of the transfer or charge), answered, then processed from the
 * record by the handler of its kind, on this replica at once and by any replica's sweep after a crash. An event no
 * handler takes, or whose reference names nothing, is kept with the outcome `unmatched`, counted and logged for an
 * operator, never dropped.
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
      help: "Bank partners' events by provider, event and outcome: recorded, duplicate (a resend), refused (bad signature), applied, unmatched (names nothing known: kept for an operator).",
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
    // The event, what it is about, and its status (Flutterwave's transfer.completed carries success and failure alike).
    const key = `${body.event}:${reference ?? String(body.data.id ?? '')}:${typeof body.data.status === 'string' ? body.data.status : ''}`;
    const inserted = await this.pool.query(
      `insert into ramp.partner_events (provider, event_key, event, reference, body) values ($1, $2, $3, $4, $5)
       on conflict (provider, event_key) do nothing returning id`,
      [request.provider, key, body.event, reference, request.rawBody],
    );
    const recorded = inserted.rowCount === 1;
    this.received.inc({ provider: request.provider, event: body.event, outcome: recorded ? 'recorded' : 'duplicate' });
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

  /** One transaction: claims up to BATCH unprocessed events (skipping another replica's), handles each, marks it. */
  private async processBatch(): Promise<number> {
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      const claimed = await client.query<{ id: string; provider: string; event: string; reference: string | null; body: PartnerEvent['body'] }>(
        `select id::text, provider, event, reference, body from ramp.partner_events
         where processed_at is null order by id limit ${BATCH} for update skip locked`,
      );
      for (const row of claimed.rows) {
        const handler = this.handlers.get(row.event);
        const outcome: PartnerEventOutcome = handler ? await handler(row) : 'unmatched';
        if (outcome === 'unmatched') {
          this.logger.warn(
            { provider: row.provider, event: row.event, reference: row.reference, partnerEventId: row.id },
            "a bank partner's event names nothing the platform knows: kept for an operator",
          );
        }
        this.received.inc({ provider: row.provider, event: row.event, outcome });
        await client.query('update ramp.partner_events set processed_at = now(), outcome = $2 where id = $1', [row.id, outcome]);
      }
      await client.query('commit');
      return claimed.rows.length;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
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
