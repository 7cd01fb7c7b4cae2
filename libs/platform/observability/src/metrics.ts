import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { withTimeout } from './timeout';

/** Seconds, from a cache hit to a slow provider call; the same for every latency histogram so dashboards can add them. */
export const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** What a watched durable consumer still has to do: messages not yet delivered, and delivered but not acknowledged. */
export interface ConsumerBacklog {
  pending: number;
  ackPending: number;
}

/** What a relay still has to publish: committed events not yet in JetStream, and how long the oldest has waited. */
export interface RelayBacklog {
  unpublished: number;
  oldestSeconds: number;
}

/** A sampled gauge gives up on a source that does not answer within this, so a scrape never hangs on an outage. */
const SAMPLE_TIMEOUT_MS = 1000;
/** Gauges sampled within this of each other share one read of their source. */
const SAMPLE_REUSE_MS = 500;

/**
 * A service's Prometheus metrics, in a registry of its own (several services may share a process in tests) with the
 * service's name as a label on every series. Holds what every service measures: process and event-loop figures, NATS
 * request/reply latency on both sides, event consumers' outcomes and backlog, and the relay's backlog. Apps add their
 * own instruments to `registry` (the gateway's HTTP histogram, the notifier's delivery outcomes).
 */
export class Metrics {
  readonly registry = new Registry();
  /** Requests this service answered over NATS, by subject and outcome (`ok` or the error code). */
  readonly rpcServerSeconds: Histogram<'subject' | 'outcome'>;
  /** Requests this service made over NATS, by subject and outcome (`ok`, the error code, or SERVICE_UNAVAILABLE). */
  readonly rpcClientSeconds: Histogram<'subject' | 'outcome'>;
  /** Events taken from JetStream, by consumer and outcome: handled, duplicate, retried, dead_lettered, skipped. */
  readonly eventsConsumed: Counter<'consumer' | 'outcome'>;
  /** Seconds from an event's commit to the commit of its handling, by consumer. */
  readonly eventLagSeconds: Histogram<'consumer'>;
  /** Seconds a job's step held one of the replica's slots, by step and outcome: done, pending (released to be woken), failed. */
  readonly jobStepSeconds: Histogram<'step' | 'outcome'>;
  /** Terminal events whose integration event could not be built (a defect): skipped by the relay, kept in the log. */
  readonly integrationEventsUnbuildable: Counter<'log'>;
  /** Calls to bank partners (each attempt), by provider, call and outcome: ok, refused (a 4xx answer), unavailable. */
  readonly partnerCallSeconds: Histogram<'provider' | 'call' | 'outcome'>;
  private readonly consumers = new Map<string, { stream: string; read: () => Promise<ConsumerBacklog | undefined> }>();
  private readonly relays = new Map<string, { read: () => Promise<RelayBacklog | undefined>; leading: () => boolean }>();

  constructor(readonly service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.rpcServerSeconds = new Histogram({
      name: 'ramp_rpc_server_duration_seconds',
      help: 'NATS requests answered by this service, by subject and outcome (ok or the error code).',
      labelNames: ['subject', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.rpcClientSeconds = new Histogram({
      name: 'ramp_rpc_client_duration_seconds',
      help: "NATS requests made by this service, by subject and outcome (ok, the answering service's error code, or SERVICE_UNAVAILABLE).",
      labelNames: ['subject', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.eventsConsumed = new Counter({
      name: 'ramp_events_consumed_total',
      help: 'Events taken from JetStream by a durable consumer, by outcome: handled, duplicate (already in the inbox), retried, dead_lettered, skipped (a type the handler does not act on).',
      labelNames: ['consumer', 'outcome'],
      registers,
    });
    this.eventLagSeconds = new Histogram({
      name: 'ramp_event_handling_lag_seconds',
      help: 'Seconds from the commit of an event to the commit of its handling by a consumer.',
      labelNames: ['consumer'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.jobStepSeconds = new Histogram({
      name: 'ramp_job_step_duration_seconds',
      help: "Seconds a transaction's step held one of the replica's job slots, by step and outcome: done, pending (released to be woken by what it waits for), failed (retried later).",
      labelNames: ['step', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.integrationEventsUnbuildable = new Counter({
      name: 'ramp_integration_events_unbuildable_total',
      help: "Terminal events of the service's log whose integration event could not be built: the relay skipped them (no webhook goes out for them) and logged each; they stay in the log.",
      labelNames: ['log'],
      registers,
    });
    this.partnerCallSeconds = new Histogram({
      name: 'ramp_partner_call_duration_seconds',
      help: 'Calls to a bank partner (each attempt), by provider, call (bank_list, bank_resolve...) and outcome: ok, refused (the partner answered no), unavailable (a timeout, a fault, a 5xx, our key refused).',
      labelNames: ['provider', 'call', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    const consumers = () => [...this.consumers].map(([consumer, { stream, read }]) => ({ labels: { consumer, stream }, read }));
    const relays = () => [...this.relays].map(([log, { read }]) => ({ labels: { log }, read }));
    sampledGauge(
      this.registry,
      'ramp_consumer_pending_messages',
      'Messages of the stream that a durable consumer has not been given yet (its lag).',
      ['consumer', 'stream'],
      consumers,
      (b) => b.pending,
    );
    sampledGauge(
      this.registry,
      'ramp_consumer_ack_pending_messages',
      'Messages a durable consumer has been given and not yet acknowledged (in flight, or held by a replica that died).',
      ['consumer', 'stream'],
      consumers,
      (b) => b.ackPending,
    );
    sampledGauge(
      this.registry,
      'ramp_relay_unpublished_events',
      "Committed events of the service's log not yet published to JetStream (counted up to 100000).",
      ['log'],
      relays,
      (b) => b.unpublished,
    );
    sampledGauge(
      this.registry,
      'ramp_relay_lag_seconds',
      'Age of the oldest committed event the relay has not yet published (0 when it is up to date).',
      ['log'],
      relays,
      (b) => b.oldestSeconds,
    );
    const leaders = this.relays;
    new Gauge({
      name: 'ramp_relay_leader',
      help: "1 on the replica whose relay publishes the service's log, 0 on the others (exactly one should be 1).",
      labelNames: ['log'],
      registers,
      collect() {
        this.reset();
        for (const [log, { leading }] of leaders) this.set({ log }, leading() ? 1 : 0);
      },
    });
  }

  /** Samples a durable consumer's backlog at every scrape, until {@link unwatchConsumer}. */
  watchConsumer(consumer: string, stream: string, read: () => Promise<ConsumerBacklog | undefined>): void {
    this.consumers.set(consumer, { stream, read: sampledOncePerScrape(read) });
  }

  unwatchConsumer(consumer: string): void {
    this.consumers.delete(consumer);
  }

  /** Samples a relay's backlog at every scrape, until {@link unwatchRelay}. */
  watchRelay(log: string, read: () => Promise<RelayBacklog | undefined>, leading: () => boolean): void {
    this.relays.set(log, { read: sampledOncePerScrape(read), leading });
  }

  unwatchRelay(log: string): void {
    this.relays.delete(log);
  }

  /** A gauge read from its source at every scrape (bounded in time; left out of a scrape its source fails). */
  sampled(name: string, help: string, read: () => Promise<number>): void {
    const source = sampledOncePerScrape(read);
    sampledGauge(
      this.registry,
      name,
      help,
      [],
      () => [{ labels: {}, read: source }],
      (value) => value,
    );
  }

  /** The Prometheus text exposition of every series. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** Seconds since `start` (from process.hrtime.bigint()), for a histogram. */
export function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

interface Sampled<B> {
  labels: Record<string, string>;
  read: () => Promise<B | undefined>;
}

/** A gauge whose series are read from their sources when Prometheus scrapes; a source that fails is left out. */
function sampledGauge<B>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: string[],
  sources: () => Sampled<B>[],
  value: (backlog: B) => number,
): void {
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      await Promise.all(
        sources().map(async ({ labels, read }) => {
          const backlog = await read();
          // A labelled series of a source that did not answer is left out (reset removed it); a gauge without labels
          // cannot be left out, so it reads NaN rather than a reassuring 0.
          if (backlog !== undefined) this.set(labels, value(backlog));
          else if (labelNames.length === 0) this.set(labels, NaN);
        }),
      );
    },
  });
}

/**
 * One read shared by the gauges of a scrape (the pending and ack-pending gauges come from one consumer info), bounded in
 * time. A source that is down (NATS, PostgreSQL) gives undefined: its series are left out of that scrape, which an
 * alert on absent() catches, and readiness says why.
 */
function sampledOncePerScrape<T>(read: () => Promise<T>): () => Promise<T | undefined> {
  let last: { at: number; value: Promise<T | undefined> } | undefined;
  let running: Promise<T> | undefined;
  return () => {
    const now = Date.now();
    if (last && now - last.at <= SAMPLE_REUSE_MS) return last.value;
    // Single flight: a read that outlived its scrape's timeout is waited for again, never started twice, so a slow
    // source is not piled up with reads.
    running ??= read().finally(() => (running = undefined));
    last = { at: now, value: withTimeout(running, SAMPLE_TIMEOUT_MS).catch(() => undefined) };
    return last.value;
  };
}
