import { setTimeout as sleep } from 'timers/promises';
import autocannon from 'autocannon';
import { MixedLoad } from '@ramp/load';
import { RampClient } from '@ramp/sdk';
import { createKey, freePort, makeTestCertificates, startServices, stopAll, WebhookReceiver, type AppName } from '@ramp/testing';
import { startBare } from './baseline';
import { connect } from 'nats';
import { Pool } from 'pg';
import { EVENT_STREAMS } from '@ramp/contracts';
import { cpuMeter, cpuSeconds, residentMemory, runAlone, type BenchRow, type BenchSection } from './report';
import { bucketsSince, observations, quantile, readBucketsBy, sumBuckets, type Buckets } from './histogram';

const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 30);
const CONCURRENCY = Number(process.env.BENCH_LOAD_CONCURRENCY ?? 8);
/** The longest the load's last transactions are given to end once it stops. */
const DRAIN_MS = 90_000;
/** When, after the load stops, the transactions still open are counted (issue 30's target: none). */
const OPEN_MARK_MS = 30_000;
const APPS: AppName[] = ['gateway', 'quote', 'ramp', 'swap-transfer', 'ledger', 'notifier', 'chain'];
/** The services whose transactions' steps run in job slots. */
const JOB_APPS: AppName[] = ['ramp', 'swap-transfer'];
const STEP_HISTOGRAM = 'ramp_job_step_duration_seconds';

/** Samples the resident memory of processes every 250 ms and keeps each one's highest. */
function sampleMemory(pids: Map<string, number | undefined>): { stop: () => Map<string, number> } {
  const highest = new Map<string, number>();
  const sample = () => {
    for (const [name, pid] of pids) highest.set(name, Math.max(highest.get(name) ?? 0, residentMemory(pid).now));
  };
  sample();
  const timer = setInterval(sample, 250);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return highest;
    },
  };
}

/**
 * Resident memory (RSS) of each of the six services idle, and at its highest under the chaos test's mixed load
 * (on-ramps, off-ramps, swaps and transfers with a webhook and a callback each), beside a bare Fastify process idle
 * and at its highest under an HTTP load of the same length.
 */
export async function benchMemory(): Promise<BenchSection[]> {
  const certificates = makeTestCertificates();
  const receiver = await new WebhookReceiver(certificates, { secretFor: () => undefined }).start();
  const services = await startServices(APPS, {
    EVENTS_NAMESPACE: 'bench',
    LOG_LEVEL: 'warn',
    SANDBOX_STEP_DELAY_MS: '200',
    WEBHOOK_ALLOW_HOSTS: 'localhost',
    WEBHOOK_CA_FILE: certificates.caFile,
  });
  const barePort = await freePort();
  const bare = await startBare(barePort);
  try {
    const key = await createKey({ plan: 'enterprise', extra: ['--rate-per-minute', '100000000', '--burst', '10000000'] });
    const client = new RampClient({ apiKey: key.apiKey, baseUrl: `${services.get('gateway')!.url}/v1`, retry: { maxAttempts: 5 } });
    await client.webhooks.create({ url: receiver.url('/hooks'), events: ['*'] });
    const wallet = await client.wallets.create({ chain: 'base' });
    for (let i = 0; i < 4; i++) await client.sandbox.fundWallet(wallet.walletId, { tokenSymbol: 'USDC', amount: '50000' });

    // Idle: started, migrated, connected, one key and one wallet known, nothing in flight.
    await sleep(5000);
    const idle = new Map(APPS.map((app) => [app, residentMemory(services.get(app)!.pid).now]));
    const bareIdle = residentMemory(bare.pid).now;

    const sampler = sampleMemory(new Map(APPS.map((app) => [app, services.get(app)!.pid])));
    const counters = databaseCounters();
    const before = await counters.read();
    const streamsBefore = await streamTotals();
    const slotsBefore = await stepBuckets(services);
    const cpuSince = cpuMeter(APPS.map((app) => [app, services.get(app)!.pid]));
    const load = new MixedLoad({ client, walletId: wallet.walletId, callbackUrl: (path) => receiver.url(path), concurrency: CONCURRENCY });
    load.start();
    await sleep(LOAD_SECONDS * 1000);
    await load.stop();
    // Let the last transactions run their steps and their deliveries go out: until every transaction the load started
    // has ended in the read model (at most DRAIN_MS), so that what they cost is all counted.
    const { open, openAtMark, drainMs } = await counters.openUntilEnded(
      load.started.map((started) => started.id),
      DRAIN_MS,
      OPEN_MARK_MS,
    );
    const underLoad = sampler.stop();
    const slots = slotTimes(slotsBefore, await stepBuckets(services));
    const cpu = cpuSince();
    const database = await counters.read();
    const streamsAfter = await streamTotals();
    const transactions = load.started.length;

    const bareSampler = sampleMemory(new Map([['bare', bare.pid]]));
    const bareCpuBefore = cpuSeconds(bare.pid);
    const body = JSON.stringify({ amount: '100', tokenSymbol: 'USDC', bankCode: '058', accountNumber: '0123456785', chain: 'base' });
    const http = await autocannon({
      url: `http://127.0.0.1:${barePort}/v1/offramp/quote`,
      method: 'POST',
      connections: 50,
      duration: LOAD_SECONDS,
      headers: { 'content-type': 'application/json' },
      body,
    });
    const bareLoaded = bareSampler.stop().get('bare')!;
    const bareCpuPerRequestMs = ((cpuSeconds(bare.pid) - bareCpuBefore) * 1000) / http.requests.total;
    await counters.close();
    const perTransaction = (value: number) => value / transactions;
    const costRows: BenchRow[] = [...cpu].map(([name, seconds]) => ({
      measure: `${name}: CPU per transaction`,
      baselineLabel: 'bare Fastify process: CPU per HTTP request',
      baseline: bareCpuPerRequestMs,
      result: perTransaction(seconds * 1000),
      unit: 'ms',
      better: 'lower' as const,
    }));

    const rows: BenchRow[] = APPS.flatMap((app) => [
      {
        measure: `${app}, idle`,
        baselineLabel: 'bare Fastify process, idle',
        baseline: bareIdle,
        result: idle.get(app)!,
        unit: 'MiB',
        better: 'lower' as const,
      },
      {
        measure: `${app}, highest under load`,
        baselineLabel: 'bare Fastify process under HTTP load',
        baseline: bareLoaded,
        result: underLoad.get(app)!,
        unit: 'MiB',
        better: 'lower' as const,
      },
    ]);
    return [
      {
        title: `Resident memory of each service, idle and under a mixed load (${CONCURRENCY} flows at once for ${LOAD_SECONDS} s)`,
        command: 'npm run bench:memory',
        rows,
        notes: [
          `the load: ${load.started.length} transactions started (${(load.started.length / LOAD_SECONDS).toFixed(1)}/s) of every type, each with a webhook and a callback; ${receiver.received.length} deliveries received by the time they had all ended`,
          `after the load stopped: ${openAtMark} of its transactions still open ${OPEN_MARK_MS / 1000} s later; the last ended ${(drainMs / 1000).toFixed(1)} s after it stopped${open === 0 ? '' : ` (${open} had not after ${DRAIN_MS / 1000} s)`}`,
          slots,
          `the bare process's load: ${http.requests.total} POSTs at 50 connections (${http.requests.average.toFixed(0)} req/s)`,
          'RSS sampled every 250 ms (VmRSS); idle is read after 5 s with nothing in flight',
        ],
      },
      {
        title: `What a transaction costs under the same mixed load (${transactions} transactions of every type in ${LOAD_SECONDS} s, each with a webhook and a callback)`,
        command: 'npm run bench:memory',
        rows: costRows,
        notes: [
          `CPU is user and system time from /proc from the load's start until every transaction it started had ended (${open === 0 ? 'all did' : `${open} had not after ${DRAIN_MS / 1000} s`}), divided by the transactions started; PostgreSQL and NATS are all their processes on the machine (the bench stack only)`,
          `the database per transaction (pg_stat_database over the same time): ${perTransaction(database.commits - before.commits).toFixed(1)} database transactions committed (reads included), ${perTransaction(database.inserted - before.inserted).toFixed(1)} rows inserted, ${perTransaction(database.updated - before.updated).toFixed(1)} updated, ${perTransaction(database.deleted - before.deleted).toFixed(1)} deleted; ${(perTransaction(database.bytes - before.bytes) / 1024).toFixed(1)} KiB of growth (tables and indexes, before any vacuum)`,
          `JetStream per transaction (the bench namespace's streams, messages and bytes, over the same time): ${perTransaction(streamsAfter.messages - streamsBefore.messages).toFixed(1)} messages, ${(perTransaction(streamsAfter.bytes - streamsBefore.bytes) / 1024).toFixed(1)} KiB on each replica`,
          `the bare process's CPU: ${bareCpuPerRequestMs.toFixed(3)} ms per request over ${http.requests.total} requests`,
        ],
      },
    ];
  } finally {
    bare.kill('SIGTERM');
    await stopAll(services.values());
    await receiver.stop();
  }
}

/** Each job service's step histograms, by outcome and step (`ramp|done|settle`), as its /metrics serves them now. */
async function stepBuckets(services: Map<AppName, { opsUrl: string }>): Promise<Map<string, Buckets>> {
  const read = async (app: AppName) => {
    const text = await (await fetch(`${services.get(app)!.opsUrl}/metrics`)).text();
    return ['done', 'pending', 'failed'].flatMap((outcome) =>
      [...readBucketsBy(text, STEP_HISTOGRAM, 'step', { outcome })].map(([step, buckets]) => [`${app}|${outcome}|${step}`, buckets] as const),
    );
  };
  return new Map((await Promise.all(JOB_APPS.map(read))).flat());
}

/**
 * How long the load's steps held a job slot (p50, p99, over both services), from the histograms' growth over the run:
 * in all, by outcome, and the steps with the longest p99.
 */
function slotTimes(before: Map<string, Buckets>, after: Map<string, Buckets>): string {
  const since = [...after].map(([key, buckets]) => ({
    key: key.split('|') as [string, string, string],
    buckets: bucketsSince(before.get(key) ?? new Map(), buckets),
  }));
  const of = (keep: (app: string, outcome: string, step: string) => boolean) =>
    sumBuckets(...since.filter(({ key }) => keep(...key)).map(({ buckets }) => buckets));
  const ms = (buckets: Buckets, q: number) => `${(quantile(buckets, q) * 1000).toFixed(1)} ms`;
  const figures = (buckets: Buckets) => `p50 ${ms(buckets, 0.5)}, p99 ${ms(buckets, 0.99)}`;
  const all = of(() => true);
  const outcome = (wanted: string) => of((_app, ended) => ended === wanted);
  const steps = [...new Set(since.map(({ key: [app, , step] }) => `${app} ${step}`))]
    .map((name) => ({ name, buckets: of((app, _outcome, step) => `${app} ${step}` === name) }))
    .filter(({ buckets }) => observations(buckets) > 0)
    .sort((a, b) => quantile(b.buckets, 0.99) - quantile(a.buckets, 0.99))
    .slice(0, 3);
  return (
    `how long a step held a job slot (ramp and swap-transfer, ${STEP_HISTOGRAM} over the run, interpolated in its buckets): ${figures(all)} over ${observations(all)} steps; ` +
    `${observations(outcome('done'))} done (${figures(outcome('done'))}), ${observations(outcome('pending'))} released pending to be woken by their send (${figures(outcome('pending'))}), ${observations(outcome('failed'))} failed and retried; ` +
    `longest p99: ${steps.map(({ name, buckets }) => `${name} ${figures(buckets)} (${observations(buckets)})`).join('; ')}`
  );
}

/** Messages and bytes held by the streams of the bench namespace (the services' events, chain events, integration events). */
async function streamTotals(): Promise<{ messages: number; bytes: number }> {
  const nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
  try {
    const jsm = await nc.jetstreamManager();
    let messages = 0;
    let bytes = 0;
    for (const streamOf of EVENT_STREAMS) {
      const state = await jsm.streams.info(streamOf('bench').stream).then(
        (info) => info.state,
        () => undefined,
      );
      messages += state?.messages ?? 0;
      bytes += state?.bytes ?? 0;
    }
    return { messages, bytes };
  } finally {
    await nc.close();
  }
}

/** The bench database's counters (commits, rows written, size), to divide by the transactions a load ran. */
function databaseCounters() {
  // Its one connection is kept from the first read to the last (never closed idle): under the load, the seven services'
  // pools (DB_POOL_MAX 20 each) can take every other connection of a PostgreSQL with the default max_connections of 100,
  // and a bench that reconnected after the load was once refused ("too many clients").
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 1, idleTimeoutMillis: 0 });
  return {
    read: async () => {
      // Statistics reach pg_stat_database when a backend reports them (at most a second or so after a commit).
      await sleep(1500);
      const row = (
        await pool.query<{ commits: string; inserted: string; updated: string; deleted: string; bytes: string }>(
          `select xact_commit as commits, tup_inserted as inserted, tup_updated as updated, tup_deleted as deleted, pg_database_size(datname) as bytes
             from pg_stat_database where datname = current_database()`,
        )
      ).rows[0]!;
      return {
        commits: Number(row.commits),
        inserted: Number(row.inserted),
        updated: Number(row.updated),
        deleted: Number(row.deleted),
        bytes: Number(row.bytes),
      };
    },
    /**
     * Waits until none of these transactions is open in the ledger's read model, or `timeoutMs`: how many still are
     * then, how many were `markMs` after the wait began, and how long the last of them took to end.
     */
    openUntilEnded: async (ids: string[], timeoutMs: number, markMs: number): Promise<{ open: number; openAtMark: number; drainMs: number }> => {
      const start = Date.now();
      let openAtMark: number | undefined;
      for (;;) {
        const ended = Number(
          (await pool.query<{ n: string }>(`select count(*) as n from ledger.transactions where id = any($1) and status in ('completed', 'failed')`, [ids]))
            .rows[0]!.n,
        );
        const open = ids.length - ended;
        const elapsed = Date.now() - start;
        if (openAtMark === undefined && (elapsed >= markMs || open === 0)) openAtMark = open;
        if (open === 0 || elapsed > timeoutMs) return { open, openAtMark: openAtMark ?? open, drainMs: elapsed };
        await sleep(500);
      }
    },
    close: () => pool.end(),
  };
}

if (require.main === module) runAlone('bench:memory', benchMemory);
