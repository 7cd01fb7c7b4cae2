import { Client } from 'pg';
import type { ChainLogger } from '@ramp/evm';
import type { ChainRuntime } from './chain-runtime';

export interface ChainLoopOptions {
  databaseUrl: string;
  /** Pause between passes while leading. */
  pollMs: number;
  logger: ChainLogger;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Most log lines per part and minute about the same failure (an RPC outage would print one per pass otherwise). */
const ERRORS_PER_MINUTE = 6;

/**
 * Runs one chain's passes (watcher, send queues) on exactly one replica: the one holding the chain's session advisory
 * lock on a connection of its own. When that replica dies, its connection closes, the lock is free and another takes
 * over; everything it did is in PostgreSQL (checkpoints, recorded sends), so the next leader resumes where it stopped.
 */
export class ChainLoop {
  private stopped = false;
  private loop: Promise<void> | undefined;
  private leading = false;
  private readonly errors = new Map<string, { minute: number; count: number }>();

  constructor(
    private readonly runtime: ChainRuntime,
    private readonly options: ChainLoopOptions,
  ) {}

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    const { logger } = this.options;
    const chain = this.runtime.id;
    while (!this.stopped) {
      const client = new Client({ connectionString: this.options.databaseUrl, application_name: `chain-${chain}` });
      client.on('error', () => undefined);
      try {
        await client.connect();
        while (!this.stopped && !(await this.tryLock(client))) await sleep(1000);
        if (this.stopped) break;
        this.leading = true;
        logger.info({ chain }, 'this replica runs the chain');
        await this.runtime.prepare();
        while (!this.stopped) {
          await this.runtime.tick((part, error) => this.report(part, error));
          // The lock lives as long as this connection: a pass on a dead connection must not go on leading.
          await client.query('select 1');
          await sleep(this.options.pollMs);
        }
      } catch (error) {
        this.report('leadership', error);
        await sleep(1000);
      } finally {
        this.leading = false;
        await client.end().catch(() => undefined);
      }
    }
  }

  private async tryLock(client: Client): Promise<boolean> {
    const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1)) as locked', [`chain:${this.runtime.id}`]);
    return rows[0]!.locked;
  }

  private report(part: string, error: unknown): void {
    const minute = Math.floor(Date.now() / 60_000);
    const seen = this.errors.get(part);
    const count = seen && seen.minute === minute ? seen.count + 1 : 1;
    this.errors.set(part, { minute, count });
    if (count > ERRORS_PER_MINUTE) return;
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    this.options.logger.warn({ chain: this.runtime.id, part, error: message }, 'chain pass failed; retried at the next pass');
  }
}
