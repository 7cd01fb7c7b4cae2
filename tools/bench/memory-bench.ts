import { setTimeout as sleep } from 'timers/promises';
import autocannon from 'autocannon';
import { MixedLoad } from '@ramp/load';
import { RampClient } from '@ramp/sdk';
import { createKey, freePort, makeTestCertificates, startServices, stopAll, WebhookReceiver, type AppName } from '@ramp/testing';
import { startBare } from './baseline';
import { residentMemory, runAlone, type BenchRow, type BenchSection } from './report';

const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 30);
const CONCURRENCY = Number(process.env.BENCH_LOAD_CONCURRENCY ?? 8);
const APPS: AppName[] = ['gateway', 'quote', 'ramp', 'swap-transfer', 'ledger', 'notifier', 'chain'];

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
    const load = new MixedLoad({ client, walletId: wallet.walletId, callbackUrl: (path) => receiver.url(path), concurrency: CONCURRENCY });
    load.start();
    await sleep(LOAD_SECONDS * 1000);
    await load.stop();
    // Let the last transactions run their steps and their deliveries go out.
    await sleep(3000);
    const underLoad = sampler.stop();

    const bareSampler = sampleMemory(new Map([['bare', bare.pid]]));
    const body = JSON.stringify({ amount: '100', tokenSymbol: 'USDC', bankCode: '058', accountNumber: '0123456785', chain: 'base' });
    const http = await autocannon({ url: `http://127.0.0.1:${barePort}/v1/offramp/quote`, method: 'POST', connections: 50, duration: LOAD_SECONDS, headers: { 'content-type': 'application/json' }, body });
    const bareLoaded = bareSampler.stop().get('bare')!;

    const rows: BenchRow[] = APPS.flatMap((app) => [
      { measure: `${app}, idle`, baselineLabel: 'bare Fastify process, idle', baseline: bareIdle, result: idle.get(app)!, unit: 'MiB', better: 'lower' as const },
      { measure: `${app}, highest under load`, baselineLabel: 'bare Fastify process under HTTP load', baseline: bareLoaded, result: underLoad.get(app)!, unit: 'MiB', better: 'lower' as const },
    ]);
    return [
      {
        title: `Resident memory of each service, idle and under a mixed load (${CONCURRENCY} flows at once for ${LOAD_SECONDS} s)`,
        command: 'npm run bench:memory',
        rows,
        notes: [
          `the load: ${load.started.length} transactions started (${(load.started.length / LOAD_SECONDS).toFixed(1)}/s) of every type, each with a webhook and a callback; ${receiver.received.length} signed deliveries received meanwhile`,
          `the bare process's load: ${http.requests.total} POSTs at 50 connections (${http.requests.average.toFixed(0)} req/s)`,
          'RSS sampled every 250 ms (VmRSS); idle is read after 5 s with nothing in flight',
        ],
      },
    ];
  } finally {
    bare.kill('SIGTERM');
    await stopAll(services.values());
    await receiver.stop();
  }
}

if (require.main === module) runAlone('bench:memory', benchMemory);
