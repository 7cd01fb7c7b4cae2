import { Pool } from 'pg';
import { EventLog, eventStoreMigration } from '@ramp/event-store';
import { jobsFinishedLegsMigration, jobsPendingMigration, jobsTableMigration, JobQueue } from './jobs';
import { ChainSendWakes } from './chain-wakes';
import { JobWorker } from './job-worker';
import type { Job } from './jobs';
import { StepPending } from './step-pending';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ramp_platform_test';
const schema = `jobs_test_${Date.now().toString(36)}`;
const txn = (n: number) => `txn_01JBZ7Q0000000000000000${n.toString().padStart(3, '0')}`;

describe('process-kit - jobs released pending and woken by a final send', () => {
  const pool = new Pool({ connectionString: DATABASE_URL });
  const jobs = new JobQueue(pool, schema);
  const wakes = new ChainSendWakes(jobs, ['onramp', 'offramp']);
  const dueIn = async (stream: string) =>
    Number((await pool.query(`select extract(epoch from (due_at - now())) * 1000 as ms from ${schema}.jobs where stream_id = $1`, [stream])).rows[0].ms);
  const claimOnly = async (stream: string) => {
    // Each test starts with no job (beforeEach) and has one due at a time: the claim takes it.
    await pool.query(`update ${schema}.jobs set due_at = now() - interval '1 second' where stream_id = $1`, [stream]);
    const {
      jobs: [job],
    } = await jobs.claim(30_000);
    expect(job?.stream_id).toBe(stream);
    return job!;
  };

  beforeAll(async () => {
    await pool.query(`create schema ${schema}`);
    for (const statement of [
      ...eventStoreMigration(schema),
      ...jobsTableMigration(schema),
      ...jobsPendingMigration(schema),
      ...jobsFinishedLegsMigration(schema),
    ])
      await pool.query(statement);
  });

  beforeEach(async () => {
    await pool.query(`delete from ${schema}.jobs`);
  });

  afterAll(async () => {
    await pool.query(`drop schema ${schema} cascade`);
    await pool.end();
  });

  it("a pending leg's job is due at once when its send is final; a job due at an expiry is never moved", async () => {
    const later = new Date(Date.now() + 3_600_000);
    await jobs.schedule(pool, `offramp-${txn(1)}`, 'settle', 3, new Date());
    await jobs.schedule(pool, `offramp-${txn(2)}`, 'awaitDeposit', 1, later);
    const settle = await claimOnly(`offramp-${txn(1)}`);
    await jobs.retryLater(settle.id, 60_000, 'the transfer is pending', true);
    expect(await dueIn(`offramp-${txn(1)}`)).toBeGreaterThan(50_000);

    // The deposit-awaiting off-ramp's refund of a stray deposit finishes: its expiry stays where it was.
    expect(await wakes.onSendFinished(pool, { idempotencyKey: `transfer:${txn(2)}:refund:0` })).toBe(0);
    expect(await dueIn(`offramp-${txn(2)}`)).toBeGreaterThan(3_500_000);
    // The platform's own sends name no transaction.
    expect(await wakes.onSendFinished(pool, { idempotencyKey: 'sweep:test:base:0xabc:0' })).toBe(0);

    expect(await wakes.onSendFinished(pool, { idempotencyKey: `transfer:${txn(1)}:settle` })).toBe(1);
    expect(await dueIn(`offramp-${txn(1)}`)).toBeLessThanOrEqual(0);
    // A second delivery of the same event finds nothing left to wake.
    expect(await wakes.onSendFinished(pool, { idempotencyKey: `transfer:${txn(1)}:settle` })).toBe(0);
  });

  it('a netted transfer wakes the transaction of every settlement it carries, each once', async () => {
    for (const n of [40, 41]) {
      await jobs.schedule(pool, `offramp-${txn(n)}`, 'payout', 5, new Date());
      const payout = await claimOnly(`offramp-${txn(n)}`);
      await jobs.retryLater(payout.id, 60_000, 'the settlement is queued', true);
    }
    const shares = [41, 40, 41].map((n) => ({ idempotencyKey: `${txn(n)}:settle`, paysOut: txn(n), amount: '1' }));
    const netted = { tokenSymbol: 'CNGN', amount: '3', to: '0xabc', account: 'offramp-provider', shares };
    const final = { environment: 'test', chain: 'base', status: 'confirmed', transactionHash: '0xnet' } as const;
    expect(await wakes.onSendFinished(pool, { ...final, idempotencyKey: 'net:4f2a', transfer: netted })).toBe(2);
    for (const n of [40, 41]) expect(await dueIn(`offramp-${txn(n)}`)).toBeLessThanOrEqual(0);
    // Each transaction's job keeps its own settlement only.
    for (const n of [40, 41]) {
      expect((await claimOnly(`offramp-${txn(n)}`)).finishedLegs).toEqual({
        [`transfer:${txn(n)}:settle`]: { kind: 'transfer', environment: 'test', chain: 'base', transactionHash: '0xnet', amount: '1' },
      });
      await pool.query(`update ${schema}.jobs set locked_until = null, due_at = now() + interval '1 hour' where stream_id = $1`, [`offramp-${txn(n)}`]);
    }
  });

  it('a send final while its step still runs has the job run again at once when the step ends pending', async () => {
    await jobs.schedule(pool, `onramp-${txn(3)}`, 'deliver', 4, new Date());
    const deliver = await claimOnly(`onramp-${txn(3)}`);
    expect(await wakes.onSendFinished(pool, { idempotencyKey: `transfer:${txn(3)}:deliver` })).toBe(1);
    await jobs.retryLater(deliver.id, 60_000, 'the transfer is pending', true);
    expect(await dueIn(`onramp-${txn(3)}`)).toBeLessThanOrEqual(0);

    // Not woken this time: it waits its fallback look.
    const again = await claimOnly(`onramp-${txn(3)}`);
    await jobs.retryLater(again.id, 60_000, 'the transfer is pending', true);
    expect(await dueIn(`onramp-${txn(3)}`)).toBeGreaterThan(50_000);
  });

  it("a woken job's next run, and only it, knows what the sends that woke it told of its legs", async () => {
    const stream = `offramp-${txn(5)}`;
    await jobs.schedule(pool, stream, 'swapToCngn', 2, new Date());
    const first = await claimOnly(stream);
    expect(first.finishedLegs).toBeUndefined();
    await jobs.retryLater(first.id, 60_000, 'the swap is pending', true);
    const swap = { fromToken: 'USDC', amountIn: '10', toToken: 'CNGN', amountOut: '15234.5', to: '0xhot', intoHotWallet: true, account: 'hot' };
    const base = { environment: 'test', chain: 'base', gasCost: '0.0001', nativeSymbol: 'ETH' } as const;
    expect(await wakes.onSendFinished(pool, { ...base, idempotencyKey: `swap:${txn(5)}:leg:0`, status: 'confirmed', transactionHash: '0xswap', swap })).toBe(1);
    // A second send of the transaction final before the job ran: nothing more to wake, but what it told is kept too.
    const settle = { tokenSymbol: 'CNGN', amount: '15000', to: '0xprovider', account: 'provider' };
    expect(
      await wakes.onSendFinished(pool, {
        ...base,
        idempotencyKey: `transfer:${txn(5)}:settle`,
        status: 'confirmed',
        transactionHash: '0xsettle',
        transfer: settle,
      }),
    ).toBe(0);
    // A failure is not kept: the step asks the chain service, whose answer says more.
    await wakes.onSendFinished(pool, { ...base, idempotencyKey: `swap:${txn(5)}:leg:1`, status: 'failed', transactionHash: '0xreverted', error: 'reverted' });
    const woken = await claimOnly(stream);
    expect(woken.finishedLegs).toEqual({
      [`swap:${txn(5)}:leg:0`]: { kind: 'swap', environment: 'test', chain: 'base', transactionHash: '0xswap', amountOut: '15234.5' },
      [`transfer:${txn(5)}:settle`]: { kind: 'transfer', environment: 'test', chain: 'base', transactionHash: '0xsettle', amount: '15000' },
    });
    // Handed to that run alone: released pending again and looked at later, it asks.
    await jobs.retryLater(woken.id, 60_000, 'the payout is pending', true);
    expect((await claimOnly(stream)).finishedLegs).toBeUndefined();
  });

  it('a failed step is not pending: a send of its transaction, during its run or after, does not hurry its backoff', async () => {
    await jobs.schedule(pool, `offramp-${txn(4)}`, 'payout', 5, new Date());
    const payout = await claimOnly(`offramp-${txn(4)}`);
    // The settlement's transfer becomes final while the step runs, and the bank payout in the same step fails.
    expect(await wakes.onSendFinished(pool, { idempotencyKey: `transfer:${txn(4)}:settle` })).toBe(1);
    await jobs.retryLater(payout.id, 60_000, 'the bank is down');
    expect(await dueIn(`offramp-${txn(4)}`)).toBeGreaterThan(50_000);
    expect(await wakes.onSendFinished(pool, { idempotencyKey: `swap:${txn(4)}:swap` })).toBe(0);
    expect(await dueIn(`offramp-${txn(4)}`)).toBeGreaterThan(50_000);
  });

  it('a claim says how long until the next job it did not take is due: the cap when none is, never the ones it took', async () => {
    expect(await jobs.claim(30_000, 4, 1000)).toEqual({ jobs: [], msUntilNextDue: 1000 });
    await jobs.schedule(pool, `swap-${txn(30)}`, 'executeLeg', 1, new Date(Date.now() - 1000));
    await jobs.schedule(pool, `swap-${txn(31)}`, 'executeLeg', 1, new Date(Date.now() + 600));
    await jobs.schedule(pool, `swap-${txn(32)}`, 'executeLeg', 1, new Date(Date.now() + 60_000));
    const first = await jobs.claim(30_000, 4, 1000);
    expect(first.jobs.map((job) => [job.stream_id, job.step, job.decided_at_version, job.attempts])).toEqual([[`swap-${txn(30)}`, 'executeLeg', 1, 1]]);
    expect(typeof first.jobs[0]!.id).toBe('string');
    // The job it took was due a second ago: left out, the next is the one due in 600 ms.
    expect(first.msUntilNextDue).toBeGreaterThan(300);
    expect(first.msUntilNextDue).toBeLessThanOrEqual(600);
    // A job due now that it had no slot for: due at once.
    await jobs.schedule(pool, `swap-${txn(33)}`, 'executeLeg', 1, new Date(Date.now() - 1000));
    await jobs.schedule(pool, `swap-${txn(34)}`, 'executeLeg', 1, new Date(Date.now() - 500));
    const second = await jobs.claim(30_000, 1, 1000);
    expect(second.jobs.map((job) => job.stream_id)).toEqual([`swap-${txn(33)}`]);
    expect(second.msUntilNextDue).toBe(0);
  });

  it('one claimer runs as many jobs at once as the replica has slots, and the next ones as slots free', async () => {
    const started: Job[] = [];
    const release: (() => void)[] = [];
    let running = 0;
    let most = 0;
    const worker = new JobWorker({
      jobs,
      databaseUrl: DATABASE_URL,
      applicationName: `${schema}-worker`,
      leaseMs: 30_000,
      concurrency: 3,
      logger: { info: () => undefined, warn: () => undefined },
      run: async (job) => {
        started.push(job);
        most = Math.max(most, ++running);
        await new Promise<void>((resolve) => release.push(resolve));
        running--;
        await jobs.done(pool, job.id);
      },
    });
    await worker.start();
    try {
      for (let n = 10; n < 15; n++) await jobs.schedule(pool, `swap-${txn(n)}`, 'executeLeg', 1, new Date());
      const until = async (done: () => boolean) => {
        for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
        return done();
      };
      expect(await until(() => started.length === 3)).toBe(true);
      // Three slots, three running: the other two wait, whatever the NOTIFYs say.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(started).toHaveLength(3);
      expect(worker.busy).toBe(3);
      release.shift()!();
      expect(await until(() => started.length === 4)).toBe(true);
      while (release.length > 0 || started.length < 5) {
        release.shift()?.();
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(await until(() => running === 0 && release.length === 0)).toBe(true);
      expect(new Set(started.map((job) => job.stream_id)).size).toBe(5);
      expect(most).toBe(3);
      expect(Number((await pool.query(`select count(*) from ${schema}.jobs`)).rows[0].count)).toBe(0);
    } finally {
      for (const resolve of release) resolve();
      await worker.stop();
    }
  });

  it('a job that ends with slots to spare wakes no claim: one claim runs three jobs; a pending job woken during its run is claimed again at once', async () => {
    let claims = 0;
    const counting = new JobQueue(pool, schema);
    const claim = counting.claim.bind(counting);
    counting.claim = (...args) => ((claims += 1), claim(...args));
    const runs: string[] = [];
    const worker = new JobWorker({
      jobs: counting,
      databaseUrl: DATABASE_URL,
      applicationName: `${schema}-spare`,
      leaseMs: 30_000,
      concurrency: 8,
      logger: { info: () => undefined, warn: () => undefined },
      run: async (job) => {
        runs.push(job.stream_id);
        await new Promise((resolve) => setTimeout(resolve, 50));
        if (job.stream_id === `offramp-${txn(43)}`) {
          // What it waits for happens while it runs: released pending, it is due at once.
          if (runs.filter((stream) => stream === job.stream_id).length === 1) {
            await wakes.onSendFinished(pool, { idempotencyKey: `transfer:${txn(43)}:settle` });
            throw new StepPending('the transfer is pending', 60_000);
          }
        }
        await jobs.done(pool, job.id);
      },
    });
    for (let n = 40; n < 43; n++) await jobs.schedule(pool, `swap-${txn(n)}`, 'executeLeg', 1, new Date());
    await worker.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The first claim took all three; their ends (well within the claimer's 1 s sleep) asked for nothing.
      expect(runs).toHaveLength(3);
      expect(claims).toBe(1);
      await jobs.schedule(pool, `offramp-${txn(43)}`, 'settle', 3, new Date());
      for (let i = 0; i < 40 && runs.length < 5; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      // Run, released pending, claimed again well before the claimer's sleep or the job's 60 s look would end.
      expect(runs.slice(3)).toEqual([`offramp-${txn(43)}`, `offramp-${txn(43)}`]);
    } finally {
      await worker.stop();
    }
  });

  it('while its LISTEN connection is down, a job that ends wakes the claimer: the next step it wrote is not left to the poll', async () => {
    const started = new Map<string, number>();
    let release: () => void = () => undefined;
    const applicationName = `${schema}-nolisten`;
    const worker = new JobWorker({
      jobs,
      databaseUrl: DATABASE_URL,
      applicationName,
      leaseMs: 30_000,
      concurrency: 8,
      logger: { info: () => undefined, warn: () => undefined },
      run: async (job) => {
        started.set(job.stream_id, Date.now());
        if (job.stream_id === `swap-${txn(50)}`) {
          await new Promise<void>((resolve) => (release = resolve));
          // The next step, written as a step writes it (its NOTIFY lost: nobody listens).
          await jobs.schedule(pool, `swap-${txn(51)}`, 'executeLeg', 1, new Date());
        }
        await jobs.done(pool, job.id);
      },
    });
    await worker.start();
    try {
      await jobs.schedule(pool, `swap-${txn(50)}`, 'executeLeg', 1, new Date());
      for (let i = 0; i < 100 && !started.has(`swap-${txn(50)}`); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      // The listener's connection dies (it reconnects 2 s later).
      await pool.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1`, [applicationName]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const released = Date.now();
      release();
      for (let i = 0; i < 150 && !started.has(`swap-${txn(51)}`); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      // Claimed as the first job ended, not at the claimer's next look (up to a second after its last claim).
      expect(started.get(`swap-${txn(51)}`)! - released).toBeLessThan(300);
    } finally {
      await worker.stop();
    }
  });

  it('tells how long each step held its slot and how it ended: done, pending (released), failed (retried)', async () => {
    const held: { step: string; outcome: string; seconds: number }[] = [];
    const worker = new JobWorker({
      jobs,
      databaseUrl: DATABASE_URL,
      applicationName: `${schema}-observed`,
      leaseMs: 30_000,
      concurrency: 3,
      logger: { info: () => undefined, warn: () => undefined },
      observe: (step, outcome, seconds) => held.push({ step, outcome, seconds }),
      run: async (job) => {
        await new Promise((resolve) => setTimeout(resolve, 120));
        if (job.step === 'pay') throw new StepPending('the send is not final', 60_000);
        if (job.step === 'refund') throw new Error('the provider is down');
        await jobs.done(pool, job.id);
      },
    });
    await worker.start();
    try {
      await jobs.schedule(pool, `offramp-${txn(20)}`, 'settle', 1, new Date());
      await jobs.schedule(pool, `offramp-${txn(21)}`, 'pay', 1, new Date());
      await jobs.schedule(pool, `offramp-${txn(22)}`, 'refund', 1, new Date());
      for (let i = 0; i < 200 && held.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    } finally {
      await worker.stop();
    }
    expect(held.map(({ step, outcome }) => `${step}:${outcome}`).sort()).toEqual(['pay:pending', 'refund:failed', 'settle:done']);
    for (const { seconds } of held) {
      expect(seconds).toBeGreaterThanOrEqual(0.11);
      expect(seconds).toBeLessThan(5);
    }
  });

  it('an idle replica with 16 slots makes the queries of one claimer, not one poll per slot', async () => {
    let queries = 0;
    const counted = new Proxy(pool, {
      get(target, property, receiver) {
        if (property === 'query') return (...args: Parameters<Pool['query']>) => ((queries += 1), target.query(...args));
        return Reflect.get(target, property, receiver);
      },
    });
    const worker = new JobWorker({
      jobs: new JobQueue(counted, schema),
      databaseUrl: DATABASE_URL,
      applicationName: `${schema}-idle`,
      leaseMs: 30_000,
      concurrency: 16,
      logger: { info: () => undefined, warn: () => undefined },
      run: async () => undefined,
    });
    await worker.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_500));
    } finally {
      await worker.stop();
    }
    // A claim (with its look at the next due time) about once a second: 16 polling slots would have made 80 or so.
    expect(queries).toBeGreaterThan(0);
    expect(queries).toBeLessThanOrEqual(5);
  });

  it("a queue given the service's log claims each job with its stream as it stands, read as readStream reads it", async () => {
    const log = new EventLog(schema);
    const withHistory = new JobQueue(pool, schema, log);
    const [one, two] = [`offramp-${txn(60)}`, `offramp-${txn(61)}`];
    const metadata = {
      correlationId: txn(60),
      causationId: 'test',
      actor: 'test',
      requestId: 'req_1',
      tenant: { organizationId: 'org_jobs', environment: 'test' as const, keyId: 'key_jobs' },
    };
    await log.append(pool, one, 0, [{ type: 'offramp.initiated', data: { amount: '12.50', big: '123456789012345678901234567890' } }], metadata);
    await log.append(pool, one, 1, [{ type: 'offramp.deposit_received', data: { hash: '0xabc' } }], metadata);
    await jobs.schedule(pool, one, 'swap', 2, new Date());
    // A job whose stream holds nothing (a stale job after a purge) comes with an empty history.
    await jobs.schedule(pool, two, 'swap', 1, new Date());
    const { jobs: claimed } = await withHistory.claim(30_000, 5);
    const byStream = new Map(claimed.map((job) => [job.stream_id, job]));
    expect(byStream.get(one)!.history).toEqual(await log.readStream(pool, one));
    expect(byStream.get(one)!.history!.map((event) => [event.streamVersion, event.type])).toEqual([
      [1, 'offramp.initiated'],
      [2, 'offramp.deposit_received'],
    ]);
    expect(byStream.get(two)!.history).toEqual([]);
    // A queue without the log claims the jobs alone.
    await pool.query(`update ${schema}.jobs set locked_until = null, due_at = now() - interval '1 second'`);
    const { jobs: bare } = await jobs.claim(30_000, 5);
    expect(bare).toHaveLength(2);
    for (const job of bare) expect(job.history).toBeUndefined();
  });
});
