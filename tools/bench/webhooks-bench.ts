import { setTimeout as sleep } from 'timers/promises';
import { randomUUID } from 'crypto';
import { Agent, request } from 'https';
import { readFileSync } from 'fs';
import { connect, headers as natsHeaders, type JetStreamClient } from 'nats';
import { INTEGRATION_HEADERS, integrationEvents, type IntegrationEvent } from '@ramp/contracts';
import { ApiClient, createKey, makeTestCertificates, startServices, stopAll, WebhookReceiver, type TestKey } from '@ramp/testing';
import { deliveryHeaders } from '@ramp/webhooks';
import { percentile, runAlone, type BenchSection } from './report';

/**
 * `npm run bench:webhooks`: signed deliveries per second from the notifier to a local HTTPS receiver, and the time
 * from an integration event's commit (its JetStream publish acknowledged) to its delivery, each beside a baseline
 * measured in the same run: the same signed POSTs sent straight to the same receiver, with no queue in between.
 */
const NAMESPACE = 'bench';
const WEBHOOKS = 2;
const BURST_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 3000);
const STEADY_RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 500);
const STEADY_SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 10);
const CONCURRENCY = 200;

function payload(eventId: string, i: number): IntegrationEvent {
  return {
    event: 'offramp.completed',
    timestamp: new Date().toISOString(),
    data: {
      transactionId: `txn_BENCH${String(i).padStart(21, '0')}`,
      reference: `bench-${i}`,
      type: 'offramp',
      status: 'completed',
      amount: '100',
      tokenSymbol: 'USDC',
      chain: 'base',
      transactionHash: `0x${'ab'.repeat(32)}`,
      fiatAmount: '149250.00',
      fiatCurrency: 'NGN',
      walletId: 'wal_01JD7X3Q9Z8K4M2N6P5R7S9T1V',
      metadata: { eventId },
    },
  };
}

/** Publishes `count` events (as the ramp service does) and returns each event id with the time its publish was acknowledged. */
async function publish(
  js: JetStreamClient,
  key: TestKey,
  count: number,
  perSecond: number | undefined,
  committed: Map<string, number>,
  offset: number,
): Promise<void> {
  const subject = `${integrationEvents(NAMESPACE).subjectPrefix}.offramp.completed`;
  const started = Date.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    if (perSecond) {
      const due = started + (i * 1000) / perSecond;
      if (due > Date.now()) await sleep(due - Date.now());
    }
    const eventId = randomUUID();
    const h = natsHeaders();
    h.set(INTEGRATION_HEADERS.organizationId, key.organizationId);
    h.set(INTEGRATION_HEADERS.environment, 'test');
    h.set(INTEGRATION_HEADERS.keyId, key.keyId);
    pending.push(
      js.publish(subject, JSON.stringify(payload(eventId, offset + i)), { msgID: eventId, headers: h }).then(() => void committed.set(eventId, Date.now())),
    );
    if (pending.length >= 256) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
}

async function waitFor(receiver: WebhookReceiver, total: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (receiver.received.length < total) {
    if (Date.now() > deadline) throw new Error(`only ${receiver.received.length} of ${total} deliveries arrived within ${timeoutMs / 1000} s`);
    await sleep(20);
  }
}

/** The baseline: the same signed bodies POSTed straight to the receiver over kept-alive HTTPS, `concurrency` at once. */
async function direct(
  receiver: WebhookReceiver,
  ca: string,
  total: number,
  concurrency: number,
  perSecond?: number,
): Promise<{ perSecond: number; latencies: number[] }> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ca });
  const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
  const latencies: number[] = [];
  let next = 0;
  const started = Date.now();
  const post = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const eventId = randomUUID();
      const body = JSON.stringify(payload(eventId, i));
      const headers = deliveryHeaders({ deliveryId: `dlv_${i}`, eventId, attempt: 1, now: new Date(), rawBody: body, secret });
      const sentAt = performance.now();
      const req = request(
        receiver.url('/direct'),
        { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - sentAt);
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        if (perSecond) {
          const due = started + (i * 1000) / perSecond;
          if (due > Date.now()) await sleep(due - Date.now());
        }
        await post(i);
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  agent.destroy();
  return { perSecond: total / seconds, latencies: latencies.sort((a, b) => a - b) };
}

/** Signed deliveries per second and commit-to-delivery latency, beside the same POSTs sent straight to the receiver. */
export async function benchWebhooks(): Promise<BenchSection[]> {
  const certificates = makeTestCertificates();
  const ca = readFileSync(certificates.caFile, 'utf8');
  const secrets = new Map<string, string>();
  const receiver = new WebhookReceiver(certificates, { secretFor: (path) => secrets.get(path) });
  await receiver.start();
  const services = await startServices(['notifier', 'gateway'], {
    EVENTS_NAMESPACE: NAMESPACE,
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_HOSTS: 'localhost',
    WEBHOOK_CA_FILE: certificates.caFile,
    WEBHOOK_CONCURRENCY: String(CONCURRENCY),
  });
  const nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
  try {
    const key = await createKey({ plan: 'enterprise' });
    const api = new ApiClient(`${services.get('gateway')!.url}/v1`, key.apiKey);
    for (let i = 0; i < WEBHOOKS; i++) {
      const created = await api.post('/webhooks', { url: receiver.url(`/hook${i}`), events: ['offramp.completed'] });
      if (created.status !== 201) throw new Error(`webhook registration failed: ${created.text}`);
      secrets.set(`/hook${i}`, created.body.data.secret);
    }
    secrets.set('/direct', `whsec_${Buffer.alloc(32, 1).toString('base64')}`);
    const js = nc.jetstream();
    const committed = new Map<string, number>();

    // Warm-up: connections, caches, JIT.
    await publish(js, key, 100, undefined, committed, 0);
    await waitFor(receiver, 100 * WEBHOOKS, 60_000);
    await direct(receiver, ca, 500, CONCURRENCY);
    receiver.received.length = 0;

    // Throughput: a burst, delivered as fast as the notifier can.
    const burstStart = Date.now();
    await publish(js, key, BURST_EVENTS, undefined, committed, 1000);
    await waitFor(receiver, BURST_EVENTS * WEBHOOKS, 300_000);
    const burstSeconds = (Math.max(...receiver.received.map((delivery) => delivery.receivedAt)) - burstStart) / 1000;
    const notifierRate = (BURST_EVENTS * WEBHOOKS) / burstSeconds;
    const invalid = receiver.received.filter((delivery) => !delivery.signatureValid).length;
    receiver.received.length = 0;
    const baselineBurst = await direct(receiver, ca, BURST_EVENTS * WEBHOOKS, CONCURRENCY);
    receiver.received.length = 0;

    // Latency at a steady STEADY_RATE deliveries/s: from the event's commit to its arrival.
    const events = Math.round((STEADY_RATE / WEBHOOKS) * STEADY_SECONDS);
    await publish(js, key, events, STEADY_RATE / WEBHOOKS, committed, 100_000);
    await waitFor(receiver, events * WEBHOOKS, 120_000);
    const latencies = receiver.received.map((delivery) => delivery.receivedAt - committed.get(delivery.headers['x-service-event-id']!)!).sort((a, b) => a - b);
    receiver.received.length = 0;
    const baselineSteady = await direct(receiver, ca, events * WEBHOOKS, CONCURRENCY, STEADY_RATE);

    if (invalid > 0) throw new Error(`${invalid} deliveries failed the receiver's signature check`);
    const baselineLabel = 'the same signed POSTs sent straight to the receiver, no queue';
    return [
      {
        title: `Webhook deliveries to a local HTTPS receiver (${WEBHOOKS} webhooks per event, ${CONCURRENCY} in flight, one notifier replica)`,
        command: 'npm run bench:webhooks',
        rows: [
          {
            measure: `throughput, a burst of ${BURST_EVENTS * WEBHOOKS} (JetStream → PostgreSQL → HTTPS)`,
            baselineLabel,
            baseline: baselineBurst.perSecond,
            result: notifierRate,
            unit: 'deliveries/s',
            better: 'higher',
            target: '≥ 500/s',
          },
          {
            measure: `commit → delivered at a steady ${STEADY_RATE}/s for ${STEADY_SECONDS} s, p50`,
            baselineLabel: 'POST round trip',
            baseline: percentile(baselineSteady.latencies, 50),
            result: percentile(latencies, 50),
            unit: 'ms',
            better: 'lower',
          },
          {
            measure: `commit → delivered at a steady ${STEADY_RATE}/s for ${STEADY_SECONDS} s, p99`,
            baselineLabel: 'POST round trip',
            baseline: percentile(baselineSteady.latencies, 99),
            result: percentile(latencies, 99),
            unit: 'ms',
            better: 'lower',
            target: '< 1 s',
          },
        ],
        notes: ['"Commit" is the integration event\'s publish being acknowledged by JetStream; every delivery passed the receiver\'s signature check.'],
      },
    ];
  } finally {
    await nc.close();
    await stopAll(services.values());
    await receiver.stop();
  }
}

if (require.main === module) runAlone('bench:webhooks', benchWebhooks);
