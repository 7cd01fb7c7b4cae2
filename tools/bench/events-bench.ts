import { execFile } from 'child_process';
import { randomUUID } from 'crypto';
import { cpus, totalmem } from 'os';
import { resolve } from 'path';
import { promisify } from 'util';
import { connect } from 'nats';
import { Pool } from 'pg';
import { makeNuban } from '@ramp/banking';
import { rampEvents } from '@ramp/contracts';
import { EventLog, eventStoreMigration, type EventMetadata } from '@ramp/event-store';
import { ApiClient, createKey, REGISTER_PATHS, startServices, stopAll, WORKSPACE_ROOT } from '@ramp/testing';

const run = promisify(execFile);
const DATABASE_URL = process.env.DATABASE_URL!;
const REBUILD_TRANSACTIONS = Number(process.env.BENCH_REBUILD_TRANSACTIONS ?? 50_000);
const E2E_RUNS = Number(process.env.BENCH_E2E_RUNS ?? 100);
const metadata: EventMetadata = { correlationId: 'bench', causationId: 'bench', actor: 'bench', tenant: { organizationId: 'org_bench', environment: 'test', keyId: 'key_bench' } };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function timed(total: number, concurrency: number, work: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await work(next++);
    }),
  );
  return total / (Number(process.hrtime.bigint() - started) / 1e9);
}

async function appends(lines: string[]): Promise<void> {
  const pool = new Pool({ connectionString: DATABASE_URL, max: 16 });
  const schema = 'bench_es';
  await pool.query(`drop schema if exists ${schema} cascade`);
  for (const statement of eventStoreMigration(schema)) await pool.query(statement);
  await pool.query(`create table ${schema}.raw (id bigint generated always as identity primary key, stream_id text, type text, data jsonb, metadata jsonb)`);
  const log = new EventLog(schema);
  const data = { amount: '100', tokenSymbol: 'USDC', note: 'a typical event payload of a few hundred bytes'.repeat(3) };
  const raw = (rows: number) =>
    `insert into ${schema}.raw (stream_id, type, data, metadata) values ${Array.from({ length: rows }, (_, i) => `($${i * 4 + 1}, $${i * 4 + 2}, $${i * 4 + 3}, $${i * 4 + 4})`).join(', ')}`;
  const rawValues = (rows: number) => Array.from({ length: rows }, () => [randomUUID(), 'bench.event', JSON.stringify(data), JSON.stringify(metadata)]).flat();

  const singles = 4000;
  const rawSingle = await timed(singles, 16, () => pool.query(raw(1), rawValues(1)));
  const logSingle = await timed(singles, 16, () => log.append(pool, `s-${randomUUID()}`, 0, [{ type: 'bench.event', data }], metadata));
  const batches = 200;
  const batch = Array.from({ length: 100 }, () => ({ type: 'bench.event', data }));
  const rawBatch = (await timed(batches, 16, () => pool.query(raw(100), rawValues(100)))) * 100;
  const logBatch = (await timed(batches, 16, () => log.append(pool, `b-${randomUUID()}`, 0, batch, metadata))) * 100;
  await pool.query(`drop schema ${schema} cascade`);
  await pool.end();
  lines.push(
    '## Appends (16 concurrent writers, each append its own transaction)',
    '',
    '| write | plain INSERT into a table (baseline) | event log append | ratio |',
    '|---|---|---|---|',
    `| 1 event per statement | ${rawSingle.toFixed(0)} rows/s | ${logSingle.toFixed(0)} events/s | ${((logSingle / rawSingle) * 100).toFixed(0)}% (target ≥ 50%) |`,
    `| 100 events per statement | ${rawBatch.toFixed(0)} rows/s | ${logBatch.toFixed(0)} events/s | ${((logBatch / rawBatch) * 100).toFixed(0)}% (target ≥ 50%) |`,
    '',
  );
}

function offrampEvents(transactionId: string, at: string) {
  const quote = {
    quoteId: 'qt_bench',
    expiresAt: at,
    cryptoAmount: '100',
    tokenSymbol: 'USDC',
    chain: 'base',
    fiatAmount: '149250.00',
    fiatCurrency: 'NGN',
    rate: '1492.5',
    fees: { providerFee: '199.25', platformFee: '20.00', swapFee: '20.00', totalFee: '239.25' },
    payoutAmount: '149010.75',
    bankAccount: { bankName: 'Guaranty Trust Bank', bankCode: '058', accountNumber: '0123456785', accountName: 'ADA OBI' },
  };
  return [
    { type: 'offramp.initiated', data: { transactionId, tenant: metadata.tenant, quote, walletId: 'wal_01M82JKS0653T6WKTARA9RFX7D', sourceAddress: null, depositAddress: null, depositExpiresAt: null, reference: null, callbackUrl: null, at } },
    { type: 'offramp.funds_held', data: { at } },
    { type: 'offramp.swapped', data: { cngnAmount: '149250.00', transactionHash: '0xswap', at } },
    { type: 'offramp.paid_out', data: { transactionHash: '0xsend', payoutReference: 'NIP1', at } },
  ];
}

async function rebuild(lines: string[]): Promise<void> {
  const namespace = 'bench';
  const { stream, subjectPrefix } = rampEvents(namespace);
  const nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
  const jsm = await nc.jetstreamManager();
  const js = nc.jetstream();
  await jsm.streams.delete(stream).catch(() => undefined);
  await jsm.streams.add({ name: stream, subjects: [`${subjectPrefix}.>`] });
  const at = new Date().toISOString();
  let pending: Promise<unknown>[] = [];
  let total = 0;
  for (let t = 0; t < REBUILD_TRANSACTIONS; t++) {
    const transactionId = `txn_BENCH${String(t).padStart(21, '0')}`;
    offrampEvents(transactionId, at).forEach((event, i) => {
      const stored = { globalPosition: String(total), eventId: randomUUID(), streamId: `offramp-${transactionId}`, streamVersion: i + 1, ...event, metadata, transactionId: '1', createdAt: at };
      pending.push(js.publish(`${subjectPrefix}.${event.type}`, JSON.stringify(stored)));
      total += 1;
    });
    if (pending.length >= 2000) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);

  // Baseline: only reading the same stream, without projecting.
  const started = process.hrtime.bigint();
  const reader = await js.consumers.get(stream);
  let read = 0;
  while (read < total) {
    const messages = await reader.fetch({ max_messages: 1000, expires: 5000 });
    let got = 0;
    for await (const message of messages) {
      JSON.parse(message.string());
      got += 1;
      read += 1;
    }
    if (got === 0) break;
  }
  const readRate = read / (Number(process.hrtime.bigint() - started) / 1e9);
  await nc.close();

  const pool = new Pool({ connectionString: DATABASE_URL, max: 1 });
  await pool.query(`drop table if exists ledger.transactions_rebuild`).catch(() => undefined);
  await pool.query(`delete from ledger.transactions where id like 'txn_BENCH%'`).catch(() => undefined);
  await pool.end();
  const result = await run(process.execPath, ['-r', REGISTER_PATHS, resolve(WORKSPACE_ROOT, 'dist/apps/ledger/src/cli/rebuild.js'), 'transactions'], {
    cwd: WORKSPACE_ROOT,
    env: { ...process.env, EVENTS_NAMESPACE: namespace },
    maxBuffer: 1 << 20,
  });
  const report = JSON.parse(result.stdout);
  lines.push(
    `## Projection rebuild (npm run projections:rebuild -- transactions, ${total} events of ${REBUILD_TRANSACTIONS} off-ramps)`,
    '',
    '| step | events/s |',
    '|---|---|',
    `| reading and parsing the stream only (baseline) | ${readRate.toFixed(0)} |`,
    `| full rebuild: read, fold, write the read model, swap | ${report.eventsPerSecond} (target ≥ 20000) |`,
    '',
    `rebuild: ${report.events} events into ${report.transactions} transactions in ${report.seconds} s`,
    '',
  );
}

async function endToEnd(lines: string[]): Promise<void> {
  const services = await startServices(['quote', 'ledger', 'ramp', 'gateway'], { SANDBOX_STEP_DELAY_MS: '0', LOG_LEVEL: 'warn', EVENTS_NAMESPACE: 'bench' });
  try {
    const api = new ApiClient(`${services.get('gateway')!.url}/v1`, (await createKey({ plan: 'enterprise' })).apiKey);
    const walletId = (await api.post('/wallets', { chain: 'base' })).body.data.walletId;
    await api.post(`/sandbox/wallets/${walletId}/fund`, { tokenSymbol: 'USDC', amount: String(E2E_RUNS * 10 + 100) });
    const account = makeNuban('058', '012345678');
    const baseline: number[] = [];
    const latencies: number[] = [];
    for (let i = 0; i < E2E_RUNS + 5; i++) {
      const pingStart = performance.now();
      await api.get('/transfer/chains');
      const ping = performance.now() - pingStart;
      const quote = (await api.post('/offramp/quote', { amount: '10', tokenSymbol: 'USDC', bankCode: '058', accountNumber: account, chain: 'base' })).body.data;
      const started = performance.now();
      const { transactionId } = (await api.post('/offramp/initiate', { quoteId: quote.quoteId, walletId })).body.data;
      for (;;) {
        const status = (await api.get(`/offramp/${transactionId}`)).body.data.status;
        if (status === 'completed') break;
        if (status === 'failed') throw new Error(`off-ramp ${transactionId} failed`);
        await new Promise((wait) => setTimeout(wait, 2));
      }
      if (i >= 5) {
        latencies.push(performance.now() - started);
        baseline.push(ping);
      }
    }
    latencies.sort((a, b) => a - b);
    baseline.sort((a, b) => a - b);
    lines.push(
      `## Off-ramp end to end, zero provider delays (${E2E_RUNS} custodial USDC off-ramps, one at a time, polled every 2 ms)`,
      '',
      '| measure | p50 ms | p99 ms |',
      '|---|---|---|',
      `| GET /transfer/chains round trip (baseline) | ${percentile(baseline, 50).toFixed(1)} | ${percentile(baseline, 99).toFixed(1)} |`,
      `| POST /offramp/initiate until GET shows completed | ${percentile(latencies, 50).toFixed(1)} | ${percentile(latencies, 99).toFixed(1)} (target < 500) |`,
      '',
    );
  } finally {
    await stopAll(services.values());
  }
}

async function main(): Promise<void> {
  const lines = [`# bench:events`, `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`, ''];
  await appends(lines);
  await endToEnd(lines);
  await rebuild(lines);
  lines.push(`peak memory of this process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:events failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
