import { Pool } from 'pg';
import { ensureDatabase } from '@ramp/database';
import { eventually, TEST_DATABASE_URL } from '@ramp/testing';
import { LeaderSession } from '@ramp/database';
import { ChainLoop, type LoopRuntime } from './chain-loop';
import type { LeaderRead } from './pass-look';

/** Until `condition` holds (eventually's form for a condition read from memory). */
const until = (condition: () => boolean) =>
  eventually(
    async () => condition(),
    (held) => held,
    10_000,
    20,
  );

/** A chain whose passes ask the leader's connection what `question` says, and record what they were answered. */
class FakeRuntime implements LoopRuntime {
  readonly passes: { pid: number }[] = [];
  question = 'select pg_backend_pid() as pid';
  prepared = 0;
  /** When each preparation was tried; the first `refusals` of them are refused. */
  readonly tries: number[] = [];
  refusals = 0;

  constructor(readonly id: string) {}

  async prepare(): Promise<void> {
    this.tries.push(Date.now());
    if (this.tries.length <= this.refusals) throw new Error(`refused ${this.tries.length}`);
    this.prepared += 1;
  }

  async idle(): Promise<void> {}

  async tick(read: LeaderRead): Promise<void> {
    const { rows } = await read(this.question, []);
    this.passes.push({ pid: Number(rows[0]!['pid']) });
  }
}

/** Another replica's session on the chain's lock (it competes for it as a replica of the chain service would). */
const anotherReplica = (runtime: LoopRuntime) =>
  LeaderSession.open({ connection: { connectionString: TEST_DATABASE_URL }, key: `chain:${runtime.id}`, applicationName: 'chain-loop-test' });

/** Each wait between two tries at least the one before it doubled, from `first` ms (a timer may fire a little early). */
function expectDoublingWaits(tries: readonly number[], first: number): void {
  const waits = tries.slice(1).map((at, index) => at - tries[index]!);
  for (const [index, wait] of waits.entries()) expect(wait).toBeGreaterThanOrEqual(first * 2 ** index - 5);
}

describe('ChainLoop - a chain run by the replica holding its lock, through a failed look and a lost connection', () => {
  let pool: Pool;
  const warnings: { part?: string; error?: string }[] = [];
  const logger = { info: () => undefined, warn: (fields: object) => warnings.push(fields), error: () => undefined };

  beforeAll(async () => {
    await ensureDatabase(TEST_DATABASE_URL);
    pool = new Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
  });

  afterAll(async () => {
    await pool.end();
  });

  it('keeps leading through a look that fails on a live connection, and leads anew once its connection is gone', async () => {
    const runtime = new FakeRuntime(`test-loop-${Date.now().toString(36)}`);
    const failures: { chain: string; part: string }[] = [];
    const onFailure = (chain: string, part: string) => failures.push({ chain, part });
    const loop = new ChainLoop(runtime, { databaseUrl: TEST_DATABASE_URL, pollMs: 10, logger, onFailure });
    loop.start();
    try {
      await until(() => runtime.passes.length >= 3);
      expect(loop.isLeader).toBe(true);
      const first = runtime.passes.at(-1)!.pid;

      // A question the database refuses (a SQL error, the connection alive): the pass is skipped and reported, the
      // chain stays led on the same connection, and the passes go on once the question is answered again.
      runtime.question = 'select 1 / 0 as pid';
      await until(() => warnings.some((warning) => warning.part === 'look'));
      expect(warnings.find((warning) => warning.part === 'look')?.error).toContain('division by zero');
      // Every failed pass is told (the service counts them in ramp_chain_pass_failures_total), past the six a minute
      // that the log prints.
      await until(() => failures.filter((failure) => failure.part === 'look').length > 10);
      expect(warnings.filter((warning) => warning.part === 'look').length).toBeLessThanOrEqual(6);
      expect(failures.every((failure) => failure.chain === runtime.id && failure.part === 'look')).toBe(true);
      expect(warnings.some((warning) => warning.part === 'leadership')).toBe(false);
      const skippedAt = runtime.passes.length;
      runtime.question = 'select pg_backend_pid() as pid';
      await until(() => runtime.passes.length > skippedAt + 2);
      expect(runtime.passes.slice(skippedAt).every((pass) => pass.pid === first)).toBe(true);
      expect(runtime.prepared).toBe(1);

      // The connection killed: the lock went with it, so the chain is led again on a new connection, prepared anew.
      await pool.query('select pg_terminate_backend($1)', [first]);
      await until(() => runtime.passes.some((pass) => pass.pid !== first));
      expect(warnings.some((warning) => warning.part === 'leadership')).toBe(true);
      expect(failures.some((failure) => failure.part === 'leadership')).toBe(true);
      expect(runtime.prepared).toBe(2);
      expect(loop.isLeader).toBe(true);
    } finally {
      await loop.stop();
    }
    expect(loop.isLeader).toBe(false);
  });

  it('tries a chain it cannot take up again with waits that double, keeping its lock meanwhile, then runs it', async () => {
    const runtime = new FakeRuntime(`test-loop-refused-${Date.now().toString(36)}`);
    runtime.refusals = 4;
    const failures: string[] = [];
    warnings.length = 0;
    const loop = new ChainLoop(runtime, {
      databaseUrl: TEST_DATABASE_URL,
      pollMs: 10,
      logger,
      onFailure: (_chain, part) => failures.push(part),
      prepareRetryMs: 100,
    });
    loop.start();
    const other = await anotherReplica(runtime);
    try {
      await until(() => runtime.tries.length >= 2);
      // Refused: the lock is held, so another replica does not try the chain too; the refusal is told.
      expect(loop.isLeader).toBe(true);
      expect(loop.refused?.since).toBeInstanceOf(Date);
      expect(await other.tryLead()).toBe(false);
      await until(() => runtime.passes.length >= 2);
      expect(loop.refused).toBeUndefined();
      expect(runtime.prepared).toBe(1);
      expect(runtime.tries).toHaveLength(5);
      // 100, 200, 400 and 800 ms between the tries (each at least its wait).
      expectDoublingWaits(runtime.tries, 100);
      expect(failures.filter((part) => part === 'prepare')).toHaveLength(4);
      expect(failures).not.toContain('leadership');
      expect(warnings.filter((warning) => warning.part === 'prepare')).toHaveLength(4);
      expect(warnings[0]).toMatchObject({ error: 'refused 1', retryInMs: 100 });
    } finally {
      await loop.stop();
      await other.end();
    }
  });

  it('gives the lock of a chain it still cannot take up to another replica after a while, and competes again after its wait', async () => {
    const runtime = new FakeRuntime(`test-loop-given-${Date.now().toString(36)}`);
    runtime.refusals = 1_000;
    const loop = new ChainLoop(runtime, { databaseUrl: TEST_DATABASE_URL, pollMs: 10, logger, prepareRetryMs: 100, prepareHoldMs: 250 });
    loop.start();
    const other = await anotherReplica(runtime);
    try {
      await until(() => runtime.tries.length >= 1);
      expect(await other.tryLead()).toBe(false);
      // Within its hold (250 ms: tries at 0, 100 and 300 ms would pass it) it gives the lock up; another replica gets it,
      // and this one tries nothing meanwhile.
      await until(() => !loop.isLeader);
      expect(await other.tryLead()).toBe(true);
      const tried = runtime.tries.length;
      expect(tried).toBeGreaterThanOrEqual(2);
      expect(loop.refused).toBeUndefined();
      await new Promise((wait) => setTimeout(wait, 600));
      expect(runtime.tries.length).toBe(tried);
      // The other replica gone, this one competes again and tries after its wait.
      await other.end();
      await until(() => runtime.tries.length > tried);
      expect(loop.isLeader).toBe(true);
      expectDoublingWaits(runtime.tries.slice(0, tried), 100);
    } finally {
      await loop.stop();
    }
    expect(runtime.prepared).toBe(0);
  });

  it('stops at once while it waits to try a refused chain again', async () => {
    const runtime = new FakeRuntime(`test-loop-stop-${Date.now().toString(36)}`);
    runtime.refusals = 1_000;
    const loop = new ChainLoop(runtime, { databaseUrl: TEST_DATABASE_URL, pollMs: 10, logger, prepareRetryMs: 5_000 });
    loop.start();
    await until(() => runtime.tries.length === 1 && loop.refused !== undefined);
    const stopping = Date.now();
    await loop.stop();
    expect(Date.now() - stopping).toBeLessThan(500);
    expect(runtime.tries).toHaveLength(1);
    expect(loop.isLeader).toBe(false);
  });
});
