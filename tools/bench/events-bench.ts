import { randomUUID } from 'crypto';
import { connect } from 'nats';
import { Pool } from 'pg';
import { createPublicClient, http } from 'viem';
import { Config } from '@ramp/config';
import { makeNuban } from '@ramp/banking';
import { rampEvents, transactionEventStreams } from '@ramp/contracts';
import { EventLog, eventStoreMigration, type EventMetadata } from '@ramp/event-store';
import { resolveChains } from '@ramp/evm';
import { evolveOfframp, initialOfframpState, offrampView, type OfframpEvent } from '@ramp/ramping';
import { ApiClient, createKey, rebuildTransactions, startServices, stopAll } from '@ramp/testing';
import { percentile, runAlone, type BenchSection } from './report';
const DATABASE_URL = process.env.DATABASE_URL!;
const REBUILD_TRANSACTIONS = Number(process.env.BENCH_REBUILD_TRANSACTIONS ?? 50_000);
const E2E_RUNS = Number(process.env.BENCH_E2E_RUNS ?? 100);
const SWAP_RUNS = Number(process.env.BENCH_SWAP_RUNS ?? 20);
const metadata: EventMetadata = {
  correlationId: 'bench',
  causationId: 'bench',
  actor: 'bench',
  tenant: { organizationId: 'org_bench', environment: 'test', keyId: 'key_bench' },
};

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

async function appends(): Promise<BenchSection> {
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
  const baselineLabel = 'plain INSERT into a table';
  return {
    title: 'Event log appends (16 concurrent writers, each append its own transaction)',
    command: 'npm run bench:events',
    rows: [
      { measure: 'appends, 1 event per statement', baselineLabel, baseline: rawSingle, result: logSingle, unit: 'events/s', better: 'higher', target: '≥ 50%' },
      {
        measure: 'appends, 100 events per statement',
        baselineLabel,
        baseline: rawBatch,
        result: logBatch,
        unit: 'events/s',
        better: 'higher',
        target: '≥ 50%',
      },
    ],
    notes: [],
  };
}

function offrampEvents(transactionId: string, at: string): OfframpEvent[] {
  const quote = {
    quoteId: 'qt_bench',
    expiresAt: at,
    cryptoAmount: '100',
    tokenSymbol: 'USDC',
    chain: 'base',
    fiatAmount: '149250.00',
    fiatCurrency: 'NGN' as const,
    rate: '1492.5',
    fees: { providerFee: '199.25', platformFee: '20.00', swapFee: '20.00', totalFee: '239.25' },
    payoutAmount: '149010.75',
    bankAccount: { bankName: 'Guaranty Trust Bank', bankCode: '058', accountNumber: '0123456785', accountName: 'ADA OBI' },
  };
  return [
    {
      type: 'offramp.initiated',
      data: {
        transactionId,
        tenant: metadata.tenant,
        quote,
        walletId: 'wal_01M82JKS0653T6WKTARA9RFX7D',
        sourceAddress: null,
        depositAddress: null,
        depositExpiresAt: null,
        reference: null,
        callbackUrl: null,
        at,
      },
    },
    { type: 'offramp.funds_held', data: { at } },
    { type: 'offramp.swapped', data: { cngnAmount: '149250.00', transactionHash: '0xswap', at } },
    { type: 'offramp.paid_out', data: { transactionHash: '0xsend', payoutReference: 'NIP1', at } },
  ];
}

async function rebuild(): Promise<BenchSection> {
  // A namespace of its own: the 200,000 events must not land in the stream the bench stack's services consume, whose
  // ledger would then be projecting them through the sections that follow (and its figures with them).
  const namespace = 'benchrebuild';
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
    let state = initialOfframpState;
    offrampEvents(transactionId, at).forEach((event, i) => {
      // As the ramp service publishes it: with the Transaction as it is after the event, which the read model applies.
      state = evolveOfframp(state, event);
      const carrying = { ...metadata, view: offrampView(state) };
      const stored = {
        globalPosition: String(total),
        eventId: randomUUID(),
        streamId: `offramp-${transactionId}`,
        streamVersion: i + 1,
        ...event,
        metadata: carrying,
        transactionId: '1',
        createdAt: at,
      };
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
  const report = await rebuildTransactions({ EVENTS_NAMESPACE: namespace });
  // The streams go (the rebuild made an empty one for swap-transfer's events too); no run keeps another's.
  const cleanup = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
  const cleanupJsm = await cleanup.jetstreamManager();
  for (const { stream: name } of transactionEventStreams(namespace)) await cleanupJsm.streams.delete(name).catch(() => undefined);
  await cleanup.close();
  return {
    title: `Projection rebuild (${total} events of ${REBUILD_TRANSACTIONS} off-ramps)`,
    command: 'npm run bench:events (the rebuild is npm run projections:rebuild -- transactions)',
    rows: [
      {
        measure: 'full rebuild: read, apply the carried views, write the read model, swap it in',
        baselineLabel: 'reading and parsing the stream only',
        baseline: readRate,
        result: report.eventsPerSecond,
        unit: 'events/s',
        better: 'higher',
        target: '≥ 20,000 events/s',
      },
    ],
    notes: [`${report.events} events into ${report.transactions} transactions in ${report.seconds} s`],
  };
}

/**
 * The process engine alone (events, jobs, steps, the ledger's hold and capture, the read model): off-ramps on the
 * sandbox's rails, with base left out of the test chains for the section (`TEST_CHAINS={"base":null}`: a wallet there
 * has a simulated address and its off-ramps settle on the rails), so that the figure stays comparable across changes to
 * what runs on chain. The off-ramp on chain has a section of its own (onChainEndToEnd).
 */
async function endToEnd(): Promise<BenchSection> {
  const services = await startServices(['quote', 'ledger', 'ramp', 'gateway'], {
    SANDBOX_STEP_DELAY_MS: '0',
    LOG_LEVEL: 'warn',
    EVENTS_NAMESPACE: 'bench',
    TEST_CHAINS: JSON.stringify({ base: null }),
  });
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
        const read = await api.get(`/offramp/${transactionId}`);
        if (read.status !== 200) throw new Error(`GET /offramp/${transactionId} answered ${read.status}: ${JSON.stringify(read.body)}`);
        const status = read.body.data.status;
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
    const baselineLabel = 'GET /transfer/chains round trip';
    return {
      title: `Off-ramp end to end, zero provider delays (${E2E_RUNS} custodial USDC off-ramps on the sandbox's rails, one at a time, polled every 2 ms)`,
      command: 'npm run bench:events',
      rows: [
        {
          measure: 'POST /offramp/initiate until GET shows completed, p50',
          baselineLabel,
          baseline: percentile(baseline, 50),
          result: percentile(latencies, 50),
          unit: 'ms',
          better: 'lower',
        },
        {
          measure: 'POST /offramp/initiate until GET shows completed, p99',
          baselineLabel,
          baseline: percentile(baseline, 99),
          result: percentile(latencies, 99),
          unit: 'ms',
          better: 'lower',
          target: '< 500 ms',
        },
      ],
      notes: [],
    };
  } finally {
    await stopAll(services.values());
  }
}

/**
 * A same-chain swap and a custodial off-ramp through the API until completed, each run on the local chain's pools (the
 * chain service swapping from the hot wallet through the router; the off-ramp then transferring its CNGN to the
 * provider), with the base chain mining a block a second (anvil's interval mining, for the sections only) at its
 * confirmation depth: beside the chain's own block interval, measured in the same run.
 */
async function onChainEndToEnd(): Promise<BenchSection[]> {
  const base = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS').find((chain) => chain.chain === 'base')!;
  const client = createPublicClient({ transport: http(base.rpcUrl) });
  const anvil = (method: string, params: unknown[]) => client.request({ method: method as never, params: params as never });
  const services = await startServices(['quote', 'ledger', 'swap-transfer', 'ramp', 'gateway'], {
    LOG_LEVEL: 'warn',
    EVENTS_NAMESPACE: 'bench',
    SANDBOX_STEP_DELAY_MS: '0',
  });
  try {
    const api = new ApiClient(`${services.get('gateway')!.url}/v1`, (await createKey({ plan: 'enterprise' })).apiKey);
    const walletId = (await api.post('/wallets', { chain: 'base' })).body.data.walletId;
    await api.post(`/sandbox/wallets/${walletId}/fund`, { tokenSymbol: 'USDC', amount: String(SWAP_RUNS * 20 + 200) });
    await anvil('evm_setAutomine', [false]);
    await anvil('evm_setIntervalMining', [1]);
    // The chain's own pace: the time between blocks as a client sees them.
    const intervals: number[] = [];
    let last = await client.getBlockNumber({ cacheTime: 0 });
    let seen = performance.now();
    while (intervals.length < 10) {
      await new Promise((wait) => setTimeout(wait, 10));
      const head = await client.getBlockNumber({ cacheTime: 0 });
      if (head === last) continue;
      const now = performance.now();
      if (head === last + 1n) intervals.push(now - seen);
      [last, seen] = [head, now];
    }
    intervals.sort((a, b) => a - b);
    const baselineLabel = 'the chain mining a block (1-second interval mining)';
    // The clock starts at the initiation (after the quote), as an integrator's would.
    const swapLatencies = await timedInitiations(
      SWAP_RUNS,
      async () => {
        const quote = (await api.post('/swap/quote', { fromToken: 'USDC', toToken: 'ETH', amount: '10', fromChain: 'base', toChain: 'base', slippage: 3 })).body
          .data;
        return async () => (await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId })).body.data.id as string;
      },
      async (id) => {
        const view = (await api.get(`/swap/${id}`)).body.data;
        return { status: view.status, onchain: view.route.steps[0].settlement === 'onchain', error: view.errorMessage };
      },
    );
    const account = makeNuban('058', '012345678');
    const offrampLatencies = await timedInitiations(
      SWAP_RUNS,
      async () => {
        const quote = (await api.post('/offramp/quote', { amount: '10', tokenSymbol: 'USDC', bankCode: '058', accountNumber: account, chain: 'base' })).body
          .data;
        return async () => (await api.post('/offramp/initiate', { quoteId: quote.quoteId, walletId })).body.data.transactionId as string;
      },
      async (id) => {
        const view = (await api.get(`/offramp/${id}`)).body.data;
        return {
          status: view.status,
          onchain: view.hashes?.every((hash: { settlement: string }) => hash.settlement === 'onchain') ?? false,
          error: view.errorMessage,
        };
      },
    );
    return [
      {
        title: `Swap end to end on chain (${SWAP_RUNS} same-chain USDC → ETH swaps on base's Uniswap V2 pools, one at a time, 1-second blocks, confirmation depth ${base.confirmations})`,
        command: 'npm run bench:events',
        rows: [
          {
            measure: 'POST /swap/initiate until GET shows completed, p50',
            baselineLabel,
            baseline: percentile(intervals, 50),
            result: percentile(swapLatencies, 50),
            unit: 'ms',
            better: 'lower',
          },
          {
            measure: 'POST /swap/initiate until GET shows completed, p99',
            baselineLabel,
            baseline: percentile(intervals, 99),
            result: percentile(swapLatencies, 99),
            unit: 'ms',
            better: 'lower',
            target: '< 3 blocks',
          },
        ],
        notes: ['Each swap is signed at once and waits for the next block: up to one block interval, plus the time to see it and book it.'],
      },
      {
        title: `Off-ramp end to end on chain (${SWAP_RUNS} custodial USDC off-ramps: the swap to CNGN on base's pools, the CNGN to the provider, the bank's payout; one at a time, 1-second blocks, confirmation depth ${base.confirmations}, no provider delay)`,
        command: 'npm run bench:events',
        rows: [
          {
            measure: 'POST /offramp/initiate until GET shows completed, p50',
            baselineLabel,
            baseline: percentile(intervals, 50),
            result: percentile(offrampLatencies, 50),
            unit: 'ms',
            better: 'lower',
          },
          {
            measure: 'POST /offramp/initiate until GET shows completed, p99',
            baselineLabel,
            baseline: percentile(intervals, 99),
            result: percentile(offrampLatencies, 99),
            unit: 'ms',
            better: 'lower',
            target: '< 4 blocks',
          },
        ],
        notes: [
          'Two transactions one after the other (the settlement is sent once the swap is final): about two block intervals, plus the time to see and book each.',
        ],
      },
    ];
  } finally {
    await anvil('evm_setIntervalMining', [0]).catch(() => undefined);
    await anvil('evm_setAutomine', [true]).catch(() => undefined);
    await stopAll(services.values());
  }
}

/**
 * `runs` transactions after 2 warm-ups, one at a time: each prepared (its quote) off the clock, then timed from its
 * initiation until `read` shows it completed on chain (polled every 20 ms); the latencies, sorted.
 */
async function timedInitiations(
  runs: number,
  prepare: () => Promise<() => Promise<string>>,
  read: (id: string) => Promise<{ status: string; onchain: boolean; error?: string }>,
): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    const initiate = await prepare();
    const started = performance.now();
    const id = await initiate();
    for (;;) {
      const view = await read(id);
      if (view.status === 'completed' && view.onchain) break;
      if (view.status !== 'pending') throw new Error(`${id} ended ${view.status} (on chain: ${view.onchain}): ${view.error ?? ''}`);
      await new Promise((wait) => setTimeout(wait, 20));
    }
    if (i >= 2) latencies.push(performance.now() - started);
  }
  return latencies.sort((a, b) => a - b);
}

/**
 * Appends beside plain INSERTs, an off-ramp end to end beside a round trip, a swap on chain beside the block interval,
 * a rebuild beside reading the stream.
 */
export async function benchEvents(): Promise<BenchSection[]> {
  return [await appends(), await endToEnd(), ...(await onChainEndToEnd()), await rebuild()];
}

if (require.main === module) runAlone('bench:events', benchEvents);
