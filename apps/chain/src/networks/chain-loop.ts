import { LeaderSession } from '@ramp/database';
import type { ChainLogger } from '@ramp/evm';
import type { ChainRuntime } from './chain-runtime';

/** What the loop runs of a chain (ChainRuntime). */
export type LoopRuntime = Pick<ChainRuntime, 'id' | 'prepare' | 'tick' | 'idle'>;

export interface ChainLoopOptions {
  databaseUrl: string;
  /** Pause between passes while leading. */
  pollMs: number;
  logger: ChainLogger;
  /**
   * Told of every failure, each one (the log says at most six a minute per part): the part of the pass that failed
   * (`look`, a part of the pass, or `leadership`). The service counts them in ramp_chain_pass_failures_total.
   */
  onFailure?: (chain: string, part: string) => void;
  /**
   * A chain its leader cannot take up (ChainRuntime.prepare refused: a node on another chain, a contract missing or not
   * as pinned) is tried again after this, doubled at each refusal up to PREPARE_RETRY_MAX_MS, the lock kept meanwhile
   * so that the other replicas do not try it too, for at most `prepareHoldMs`: then the lock is given up for another
   * replica to try (the refusal may be this replica's alone: its network, its settings in a rolling update), and this
   * one waits its current wait before it competes again. Defaults PREPARE_RETRY_MS and PREPARE_HOLD_MS.
   */
  prepareRetryMs?: number;
  prepareHoldMs?: number;
}

/** The first wait before a refused chain is tried again (ChainLoopOptions.prepareRetryMs). */
export const PREPARE_RETRY_MS = 1000;

/**
 * The longest wait between two tries of a refused chain: each try asks every RPC node of the chain and the code of each
 * of its contracts (a paid provider bills each), and an operator's fix is taken up within this.
 */
export const PREPARE_RETRY_MAX_MS = 30_000;

/** How long a replica keeps the lock of a chain it cannot take up before it gives another replica its turn. */
export const PREPARE_HOLD_MS = 60_000;

/** A replica's refusals to take a chain up, given up after PREPARE_HOLD_MS: its lock goes to another replica. */
class PrepareGivenUp extends Error {}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How often a replica that does not run the chain tries to. */
const LEAD_RETRY_MS = 1000;

/** Most log lines per part and minute about the same failure (an RPC outage would print one per pass otherwise). */
const ERRORS_PER_MINUTE = 6;

/**
 * Runs one chain's passes (watcher, relayer, send queues) on exactly one replica: the one leading the chain's
 * LeaderSession (a session advisory lock on a connection of its own). When that replica dies, its connection closes,
 * the lock is free and another takes over; everything it did is in PostgreSQL (checkpoints, recorded sends), so the
 * next leader resumes where it stopped.
 */
export class ChainLoop {
  private stopped = false;
  private loop: Promise<void> | undefined;
  private leading = false;
  private refusedSince: number | undefined;
  /** The wait before this replica's next try of a chain it could not take up; reset once it takes the chain up. */
  private prepareWait: number;
  private readonly errors = new Map<string, { minute: number; count: number }>();

  constructor(
    private readonly runtime: LoopRuntime,
    private readonly options: ChainLoopOptions,
  ) {
    this.prepareWait = options.prepareRetryMs ?? PREPARE_RETRY_MS;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** Whether this replica holds the chain's lock but cannot take the chain up (its preparation refused), and since when. */
  get refused(): { since: Date } | undefined {
    return this.refusedSince === undefined ? undefined : { since: new Date(this.refusedSince) };
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
      let session: LeaderSession | undefined;
      try {
        session = await LeaderSession.open({
          connection: { connectionString: this.options.databaseUrl },
          key: `chain:${chain}`,
          applicationName: `chain-${chain}`,
        });
        if (!(await session.waitToLead(LEAD_RETRY_MS, sleep, () => this.stopped))) {
          if (this.stopped) break;
          throw session.lost ?? new Error('the leader session ended');
        }
        this.leading = true;
        logger.info({ chain }, 'this replica runs the chain');
        const held = session;
        if (!(await this.prepare(held))) break;
        while (!this.stopped) {
          // The lock lives as long as the session's connection: each pass starts with its look on it, which throws on a
          // dead connection, so that a pass there does nothing and leads no more. A look the database refused on a live
          // connection (a SQL error) skips this pass alone: the lock is still held.
          try {
            await this.runtime.tick(
              (sql, params) => held.query(sql, params),
              (part, error) => this.report(part, error),
            );
          } catch (error) {
            if (held.lost) throw error;
            this.report('look', error);
          }
          await sleep(this.options.pollMs);
        }
      } catch (error) {
        if (error instanceof PrepareGivenUp) {
          // Another replica's turn: this one waits before it competes for the lock again.
          await this.runtime.idle();
          await session?.end();
          session = undefined;
          this.leading = false;
          this.refusedSince = undefined;
          await this.pause(this.prepareWait);
        } else {
          this.report('leadership', error);
          // The lock may be gone already (its connection died): the queues' passes under way end before anything else.
          await this.runtime.idle();
          await sleep(1000);
        }
      } finally {
        // A send queue's pass may still be signing (SendLanes.tick does not wait for every queue): it ends before the
        // lock is released, so that the next leader never signs beside it.
        await this.runtime.idle();
        this.leading = false;
        this.refusedSince = undefined;
        await session?.end();
      }
    }
  }

  /**
   * Takes the chain up (ChainRuntime.prepare), tried again while it is refused with waits that double up to
   * PREPARE_RETRY_MAX_MS, the lock held for at most PREPARE_HOLD_MS of refusals (then PrepareGivenUp). Each try is
   * made on a session proven alive (a lost connection is thrown: the leadership is gone with it). False once the loop
   * is stopped.
   */
  private async prepare(session: LeaderSession): Promise<boolean> {
    const holdMs = this.options.prepareHoldMs ?? PREPARE_HOLD_MS;
    const heldSince = Date.now();
    for (;;) {
      if (this.stopped) return false;
      await session.query('select 1', []);
      try {
        await this.runtime.prepare();
        this.refusedSince = undefined;
        this.prepareWait = this.options.prepareRetryMs ?? PREPARE_RETRY_MS;
        return true;
      } catch (error) {
        if (session.lost) throw error;
        this.refusedSince ??= Date.now();
        this.report('prepare', error, this.prepareWait);
      }
      if (Date.now() + this.prepareWait - heldSince > holdMs) throw new PrepareGivenUp();
      if (!(await this.pause(this.prepareWait, session))) return false;
      this.prepareWait = Math.min(this.prepareWait * 2, PREPARE_RETRY_MAX_MS);
    }
  }

  /** Sleeps `ms` in short steps: false at once when the loop is stopped meanwhile; a session's loss is thrown. */
  private async pause(ms: number, session?: LeaderSession): Promise<boolean> {
    for (const until = Date.now() + ms; Date.now() < until;) {
      if (this.stopped) return false;
      if (session?.lost) throw session.lost;
      await sleep(Math.min(100, until - Date.now()));
    }
    return !this.stopped;
  }

  private report(part: string, error: unknown, retryInMs?: number): void {
    this.options.onFailure?.(this.runtime.id, part);
    const minute = Math.floor(Date.now() / 60_000);
    const seen = this.errors.get(part);
    const count = seen && seen.minute === minute ? seen.count + 1 : 1;
    this.errors.set(part, { minute, count });
    if (count > ERRORS_PER_MINUTE) return;
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    if (retryInMs !== undefined)
      this.options.logger.warn({ chain: this.runtime.id, part, error: message, retryInMs }, 'the chain cannot be taken up; tried again later');
    else this.options.logger.warn({ chain: this.runtime.id, part, error: message }, 'chain pass failed; retried at the next pass');
  }
}
