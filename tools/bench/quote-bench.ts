import { spawn, type ChildProcess } from 'child_process';
import { readFileSync } from 'fs';
import { cpus, totalmem } from 'os';
import { resolve } from 'path';
import autocannon from 'autocannon';
import { makeNuban } from '@ramp/banking';
import { createKey, freePort, ServiceProcess, WORKSPACE_ROOT } from '@ramp/testing';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);

interface Figures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function drive(url: string, headers: Record<string, string>, body: string): Promise<Figures> {
  const result = await autocannon({ url, method: 'POST', connections: CONNECTIONS, duration: DURATION, headers: { 'content-type': 'application/json', ...headers }, body });
  return { requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

/** Peak resident memory of a process in MiB (Linux VmHWM), or '?' elsewhere. */
function peakMemory(pid: number | undefined): string {
  try {
    const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib ? `${(Number(kib) / 1024).toFixed(0)} MiB` : '?';
  } catch {
    return '?';
  }
}

async function startBare(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [resolve(WORKSPACE_ROOT, 'tools/bench/bare-server.js')], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((ready) => child.stdout?.once('data', () => ready()));
  return child;
}

async function main(): Promise<void> {
  const body = JSON.stringify({ amount: '100', tokenSymbol: 'USDC', bankCode: '058', accountNumber: makeNuban('058', '012345678'), chain: 'base' });
  const env = { LOG_LEVEL: 'warn' };
  const quote = await new ServiceProcess('quote', await freePort(), env).start();
  const gateway = await new ServiceProcess('gateway', await freePort(), env).start();
  const barePort = await freePort();
  const bare = await startBare(barePort);
  try {
    const key = await createKey({ plan: 'enterprise', extra: ['--rate-per-minute', '100000000', '--burst', '10000000'] });
    const platformUrl = `${gateway.url}/v1/offramp/quote`;
    const bareUrl = `http://127.0.0.1:${barePort}/v1/offramp/quote`;
    // Warm both up (JIT, connection pools) before measuring.
    await autocannon({ url: platformUrl, method: 'POST', connections: 10, duration: 2, headers: { 'content-type': 'application/json', 'x-api-key': key.apiKey }, body });
    await autocannon({ url: bareUrl, method: 'POST', connections: 10, duration: 2, headers: { 'content-type': 'application/json' }, body });

    const baseline = await drive(bareUrl, {}, body);
    const platform = await drive(platformUrl, { 'x-api-key': key.apiKey }, body);
    const ratio = platform.requestsPerSecond / baseline.requestsPerSecond;
    const row = (name: string, f: Figures) =>
      `| ${name} | ${f.requestsPerSecond.toFixed(0)} | ${f.p50} | ${f.p99} | ${f.non2xx} | ${f.errors} |`;
    const lines = [
      `# bench:quote — POST /offramp/quote, ${CONNECTIONS} connections, ${DURATION} s each`,
      `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
      '',
      '| target | req/s | p50 ms | p99 ms | non-2xx | errors |',
      '|---|---|---|---|---|---|',
      row('bare Fastify endpoint (baseline)', baseline),
      row('platform: gateway → NATS → quote → PostgreSQL', platform),
      '',
      `throughput ratio platform/baseline: ${(ratio * 100).toFixed(1)}% (target ≥ 15%); platform p99 ${platform.p99} ms (target < 50 ms)`,
      `peak memory: bare ${peakMemory(bare.pid)}, gateway ${peakMemory(gateway.pid)}, quote ${peakMemory(quote.pid)}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    bare.kill('SIGTERM');
    await gateway.stop();
    await quote.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:quote failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
