import autocannon from 'autocannon';
import { makeNuban } from '@ramp/banking';
import { dec } from '@ramp/money';
import { createKey, freePort, ServiceProcess } from '@ramp/testing';
import { startBare } from './baseline';
import { cpuMeter, residentMemory, runAlone, type BenchSection } from './report';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);

interface Figures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Requests answered over the run. */
  requests: number;
}

async function drive(url: string, headers: Record<string, string>, body: string): Promise<Figures> {
  const result = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: DURATION,
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    requests: result.requests.total,
  };
}

/** A quote endpoint measured through the platform and on the bare endpoint of the same path. */
interface QuoteCase {
  path: string;
  body: string;
  title: string;
  /** What the platform does for it, for the throughput row. */
  through: string;
  /** Throws unless a first answer is what the case means to measure. */
  check?: (answer: { data?: { toAmount?: string } }) => void | Promise<void>;
}

/**
 * The feed's price of 100 USDC in ETH after the platform's 0.3% (99.7 / 3,200): a quote priced from the pools gives
 * less (the pool's own 0.3%), so a quote at this figure fell back to the feed and would measure the wrong path.
 */
const FEED_PRICED_ETH_FOR_100_USDC = '0.03115625';

const CASES: QuoteCase[] = [
  {
    path: '/v1/offramp/quote',
    body: JSON.stringify({ amount: '100', tokenSymbol: 'USDC', bankCode: '058', accountNumber: makeNuban('058', '012345678'), chain: 'base' }),
    title: "Quote path: POST /offramp/quote (priced from base's CNGN/USDC pool since ramps run on chain)",
    through: 'gateway → NATS → quote (reserves via the chain service, per CHAIN_POOLS_MAX_AGE_MS) → PostgreSQL',
  },
  {
    path: '/v1/swap/quote',
    body: JSON.stringify({ fromChain: 'base', toChain: 'base', fromToken: 'USDC', toToken: 'ETH', amount: '100' }),
    title: "Quote path priced from the pools: POST /swap/quote on base's Uniswap V2 pools",
    through: 'gateway → NATS → quote (reserves via the chain service, per CHAIN_POOLS_MAX_AGE_MS) → PostgreSQL',
    check: (answer) => {
      const toAmount = answer.data?.toAmount;
      if (!toAmount || !dec(toAmount).lessThan(FEED_PRICED_ETH_FOR_100_USDC))
        throw new Error(`the swap quote was not priced from the pools: ${JSON.stringify(answer)}`);
    },
  },
];

/**
 * The quote endpoints through the gateway and the quote service (with the chain service, for quotes priced from the
 * pools of the local chains), each beside a bare Fastify endpoint, one after the other.
 */
export async function benchQuote(): Promise<BenchSection[]> {
  const env = { LOG_LEVEL: 'warn' };
  const chain = await new ServiceProcess('chain', await freePort(), env).start();
  const quote = await new ServiceProcess('quote', await freePort(), env).start();
  const gateway = await new ServiceProcess('gateway', await freePort(), env).start();
  const barePort = await freePort();
  const bare = await startBare(barePort);
  try {
    const key = await createKey({ plan: 'enterprise', extra: ['--rate-per-minute', '100000000', '--burst', '10000000'] });
    const sections: BenchSection[] = [];
    for (const { path, body, title, through, check } of CASES) {
      const platformUrl = `${gateway.url}${path}`;
      const bareUrl = `http://127.0.0.1:${barePort}${path}`;
      if (check)
        await check(
          await fetch(platformUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key.apiKey }, body }).then(
            (answer) => answer.json() as Promise<{ data?: { toAmount?: string } }>,
          ),
        );
      // Warm both up (JIT, connection pools) before measuring.
      await autocannon({
        url: platformUrl,
        method: 'POST',
        connections: 10,
        duration: 2,
        headers: { 'content-type': 'application/json', 'x-api-key': key.apiKey },
        body,
      });
      await autocannon({ url: bareUrl, method: 'POST', connections: 10, duration: 2, headers: { 'content-type': 'application/json' }, body });

      const bareCpu = cpuMeter([['bare', bare.pid]]);
      const baseline = await drive(bareUrl, {}, body);
      const bareMs = (bareCpu().get('bare')! * 1000) / baseline.requests;
      const cpu = cpuMeter([
        ['gateway', gateway.pid],
        ['quote', quote.pid],
        ['chain', chain.pid],
      ]);
      const platform = await drive(platformUrl, { 'x-api-key': key.apiKey }, body);
      const perRequest = [...cpu()].map(([name, seconds]) => `${name} ${((seconds * 1000) / platform.requests).toFixed(3)} ms`).join(', ');
      const bareLabel = 'bare Fastify endpoint';
      const failures = platform.non2xx + platform.errors + baseline.non2xx + baseline.errors;
      sections.push({
        title: `${title}, ${CONNECTIONS} connections, ${DURATION} s each`,
        command: 'npm run bench:quote',
        rows: [
          {
            measure: `throughput (${through})`,
            baselineLabel: bareLabel,
            baseline: baseline.requestsPerSecond,
            result: platform.requestsPerSecond,
            unit: 'req/s',
            better: 'higher',
            target: '≥ 15%',
          },
          { measure: 'latency p50', baselineLabel: bareLabel, baseline: baseline.p50, result: platform.p50, unit: 'ms', better: 'lower' },
          { measure: 'latency p99', baselineLabel: bareLabel, baseline: baseline.p99, result: platform.p99, unit: 'ms', better: 'lower', target: '< 50 ms' },
          {
            measure: 'peak resident memory, gateway',
            baselineLabel: 'bare Fastify process',
            baseline: residentMemory(bare.pid).peak,
            result: residentMemory(gateway.pid).peak,
            unit: 'MiB',
            better: 'lower',
          },
          {
            measure: 'peak resident memory, quote service',
            baselineLabel: 'bare Fastify process',
            baseline: residentMemory(bare.pid).peak,
            result: residentMemory(quote.pid).peak,
            unit: 'MiB',
            better: 'lower',
          },
        ],
        notes: [
          `non-2xx answers and connection errors: ${failures}`,
          `CPU per request (user and system time from /proc over the run): ${perRequest}; the bare endpoint ${bareMs.toFixed(3)} ms`,
        ],
      });
    }
    return sections;
  } finally {
    bare.kill('SIGTERM');
    await gateway.stop();
    await quote.stop();
    await chain.stop();
  }
}

if (require.main === module) runAlone('bench:quote', benchQuote);
