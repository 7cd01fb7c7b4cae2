import { Waker } from '@ramp/database';
import { afterAttempt, deliveryHeaders, isDelivered } from '@ramp/webhooks';
import type { DeliveryMetrics } from './delivery-metrics';
import type { ClaimedDelivery, DeliveryStore } from './delivery-store';
import type { HttpsSender } from './https-sender';
import { SecretMissing, type SigningSecrets } from './signing-secrets';

/** Where the worker reads the time: the system clock in service, a hand-moved one in the retry-schedule test. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface DeliveryWorkerOptions {
  store: DeliveryStore;
  sender: HttpsSender;
  secrets: SigningSecrets;
  clock: Clock;
  /** Deliveries in flight at once on this replica. */
  concurrency: number;
  /**
   * Deliveries of one tenant (organization and environment) in flight at once on this replica: a tenant whose receivers
   * are slow or never answer holds at most this many slots; while it is at its cap, claims skip its deliveries and take
   * the other tenants'. Absent: no cap but `concurrency`.
   */
  perTenantConcurrency?: number;
  /** How long a claimed delivery is this worker's: the send timeout plus a margin. */
  leaseMs: number;
  /** Fallback poll when no NOTIFY arrives (retries coming due, other replicas' deliveries). */
  pollMs: number;
  /** The waker a LISTEN on DELIVERIES_CHANNEL pokes. */
  waker: Waker;
  logger: { warn(details: object, message: string): void; error(details: object, message: string): void };
  metrics?: DeliveryMetrics;
}

const CLAIM_BATCH = 100;
const SECRET_UNAVAILABLE_RETRY_MS = 10_000;

/**
 * Sends due deliveries on every replica: claims (leases) a batch, sends each concurrently up to `concurrency`, and
 * records each attempt with what follows it on the spec's schedule. Replicas never hold the same delivery at once
 * (SKIP LOCKED and the lease); a replica that dies mid-send loses its lease, and the delivery is sent again.
 */
export class DeliveryWorker {
  private stopped = false;
  private loop: Promise<void> | undefined;
  private inFlight = 0;
  /** In flight on this replica, per tenant (`organization:environment`). */
  private readonly inFlightOf = new Map<string, number>();
  /**
   * The tenants claims skip: in at their cap, out once three quarters of it are in flight or fewer (so that a capped
   * tenant is claimed for again in batches, not one claim per finished attempt).
   */
  private readonly capped = new Set<string>();
  /** A tenant left `capped` since the loop last looked: claim before sleeping (a wake while nobody sleeps is lost). */
  private released = false;
  private readonly sending = new Set<Promise<void>>();
  /** The last claim was full: more may be due, so claim again as soon as a slot frees. */
  private moreDue = false;

  constructor(private readonly options: DeliveryWorkerOptions) {}

  start(): void {
    this.loop = this.run();
  }

  /** Stops claiming, lets the attempts in flight finish (each bounded by the send timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.options.waker.wakeAll();
    await this.loop;
    await Promise.allSettled([...this.sending]);
  }

  /** For tests that move the clock by hand: sends everything due now, and waits for every attempt. */
  async runDue(): Promise<number> {
    let attempts = 0;
    for (;;) {
      const now = this.options.clock.now();
      const claimed = await this.options.store.claim(now, new Date(now.getTime() + this.options.leaseMs), CLAIM_BATCH);
      if (claimed.length === 0) return attempts;
      await Promise.all(claimed.map((delivery) => this.deliver(delivery)));
      attempts += claimed.length;
    }
  }

  private async run(): Promise<void> {
    const { options } = this;
    while (!this.stopped) {
      const free = options.concurrency - this.inFlight;
      // Claim in batches: while many are in flight, wait for a quarter of the slots to free up rather than claim one by one.
      if (free <= 0 || (this.inFlight > 0 && free < Math.min(CLAIM_BATCH, options.concurrency) / 4)) {
        await options.waker.sleep(options.pollMs);
        continue;
      }
      const limit = Math.min(free, CLAIM_BATCH);
      let claimed: ClaimedDelivery[];
      try {
        const now = options.clock.now();
        claimed = await options.store.claim(now, new Date(now.getTime() + options.leaseMs), limit, [...this.capped], options.perTenantConcurrency ?? limit);
      } catch (error) {
        options.logger.warn({ err: error }, 'could not claim deliveries; retrying');
        await options.waker.sleep(options.pollMs);
        continue;
      }
      this.moreDue = claimed.length === limit;
      // At most the cap of one tenant per claim; a tenant with some in flight may go over its cap by less than one cap.
      for (const delivery of claimed) this.launch(delivery);
      // A capped tenant came back under three quarters of its cap meanwhile: claim for it now rather than sleep.
      if (this.released) {
        this.released = false;
        continue;
      }
      if (!this.moreDue) await options.waker.sleep(options.pollMs);
    }
  }

  private launch(delivery: ClaimedDelivery): void {
    const tenant = tenantOf(delivery);
    this.inFlight += 1;
    const count = (this.inFlightOf.get(tenant) ?? 0) + 1;
    this.inFlightOf.set(tenant, count);
    const cap = this.options.perTenantConcurrency;
    if (cap !== undefined && count >= cap) this.capped.add(tenant);
    const sending: Promise<void> = this.deliver(delivery)
      .catch((error: unknown) =>
        this.options.logger.error({ err: error, deliveryId: delivery.id }, 'delivery attempt could not be recorded; it is sent again when its lease ends'),
      )
      .finally(() => {
        this.inFlight -= 1;
        const left = (this.inFlightOf.get(tenant) ?? 1) - 1;
        if (left > 0) this.inFlightOf.set(tenant, left);
        else this.inFlightOf.delete(tenant);
        // Three quarters or fewer of its cap in flight: its due deliveries are claimed again, now.
        if (this.capped.has(tenant) && left <= ((this.options.perTenantConcurrency ?? 0) * 3) / 4) {
          this.capped.delete(tenant);
          this.released = true;
          this.options.waker.wakeAll();
        }
        this.sending.delete(sending);
        if (this.moreDue) this.options.waker.wakeAll();
      });
    this.sending.add(sending);
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const { clock, store, sender, secrets } = this.options;
    const attempt = delivery.attempts + 1;
    let secret: string;
    try {
      secret = await secrets.secretFor(delivery);
    } catch (error) {
      if (error instanceof SecretMissing) {
        const at = clock.now();
        // Never sendable: recorded as a failed attempt that ends the delivery.
        await store.finish(delivery, { attempt, startedAt: at, durationMs: 0, statusCode: null, error: error.message }, { status: 'failed' }, at);
        this.options.metrics?.attempted(delivery, 'unsignable', { status: 'failed' });
        return;
      }
      this.options.logger.warn({ err: error, deliveryId: delivery.id }, 'signing secret unavailable; delivery postponed');
      await store.postpone(delivery, new Date(clock.now().getTime() + SECRET_UNAVAILABLE_RETRY_MS));
      return;
    }
    const startedAt = clock.now();
    const headers = deliveryHeaders({ deliveryId: delivery.id, eventId: delivery.eventId, attempt, now: startedAt, rawBody: delivery.body, secret });
    const result = await sender.send(delivery.targetUrl, delivery.body, headers);
    const finishedAt = clock.now();
    const outcome = afterAttempt(attempt, isDelivered(result.statusCode), finishedAt, delivery.maxAttempts);
    await store.finish(
      delivery,
      { attempt, startedAt, durationMs: result.durationMs, statusCode: result.statusCode, error: result.error },
      outcome,
      finishedAt,
    );
    this.options.metrics?.attempted(delivery, result, outcome);
  }
}

/** The tenant a delivery is for: its organization in one environment. */
function tenantOf(delivery: Pick<ClaimedDelivery, 'organizationId' | 'environment'>): string {
  return `${delivery.organizationId}:${delivery.environment}`;
}
