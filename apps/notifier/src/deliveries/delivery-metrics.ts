import type { Pool } from 'pg';
import { Counter, Histogram } from 'prom-client';
import { LATENCY_BUCKETS, type Metrics } from '@ramp/observability';
import type { AttemptOutcome } from '@ramp/webhooks';
import type { ClaimedDelivery } from './delivery-store';
import type { SendResult } from './https-sender';

type Target = 'webhook' | 'callback';

/**
 * The notifier's delivery outcomes: every attempt by the receiver's answer, every delivery that ends, the time an
 * attempt takes, and the deliveries waiting (sampled at scrape time). An alert on failed deliveries or on a growing
 * backlog reads these.
 */
export class DeliveryMetrics {
  private readonly attempts: Counter<'target' | 'result'>;
  private readonly finished: Counter<'target' | 'outcome'>;
  private readonly attemptSeconds: Histogram<'target'>;

  constructor(metrics: Metrics, pool: Pool) {
    const registers = [metrics.registry];
    this.attempts = new Counter({
      name: 'ramp_webhook_attempts_total',
      help: "Delivery attempts by target (webhook or the transaction's callback) and result: 2xx, 3xx, 4xx, 5xx, no_response (timeout, refused, TLS), unsignable.",
      labelNames: ['target', 'result'],
      registers,
    });
    this.finished = new Counter({
      name: 'ramp_webhook_deliveries_total',
      help: 'Deliveries that ended, by target and outcome: succeeded, or failed (every attempt of the schedule used).',
      labelNames: ['target', 'outcome'],
      registers,
    });
    this.attemptSeconds = new Histogram({
      name: 'ramp_webhook_attempt_duration_seconds',
      help: "Seconds from the start of a delivery attempt to the receiver's answer (or the timeout).",
      labelNames: ['target'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    metrics.sampled('ramp_webhook_deliveries_due', 'Pending deliveries whose next attempt is due now (a growing figure: the notifier is behind).', async () => {
      const { rows } = await pool.query<{ due: number }>(
        `select count(*)::int as due from notifier.deliveries where status = 'pending' and next_attempt_at <= now()`,
      );
      return rows[0]?.due ?? 0;
    });
  }

  /** Records an attempt and, when it ended the delivery, the delivery's outcome. */
  attempted(delivery: ClaimedDelivery, result: SendResult | 'unsignable', outcome: AttemptOutcome): void {
    const target: Target = delivery.webhookId ? 'webhook' : 'callback';
    this.attempts.inc({ target, result: result === 'unsignable' ? 'unsignable' : statusClass(result.statusCode) });
    if (result !== 'unsignable') this.attemptSeconds.observe({ target }, result.durationMs / 1000);
    if (outcome.status !== 'pending') this.finished.inc({ target, outcome: outcome.status });
  }
}

function statusClass(statusCode: number | null): string {
  return statusCode === null ? 'no_response' : `${Math.floor(statusCode / 100)}xx`;
}
