import { AppError } from '@ramp/contracts';
import { WakeupListener, Waker } from '@ramp/database';
import { withFinishedLegs } from './finished-legs';
import type { Job, JobQueue } from './jobs';
import { StepPending } from './step-pending';

const IDLE_POLL_MS = 1000;
/** A failing step waits at most this before it runs again. */
const FAILURE_RETRY_CAP_MS = 60_000;
/** A step that failed because a service it calls is down or restarting waits at most this: it comes back within seconds. */
const OUTAGE_RETRY_CAP_MS = 4_000;

/**
 * How long a step that failed for the `attempts`-th time in a row waits before it runs again: 250 ms doubled per
 * attempt, capped at a minute. When the failure is an outage (SERVICE_UNAVAILABLE: a service not running, not answering
 * in time, or saying it waits, as a restarting chain service does) the cap is 4 s, so that the transactions caught by
 * a restart go on within seconds of its return instead of sleeping out a backoff grown during it. Spread by up to a
 * quarter (`random`), so that the steps caught by one outage do not come back all at once.
 */
export function retryDelayMs(error: unknown, attempts: number, random: () => number = Math.random): number {
  const outage = error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE';
  const delay = Math.min(outage ? OUTAGE_RETRY_CAP_MS : FAILURE_RETRY_CAP_MS, 250 * 2 ** Math.min(attempts, 8));
  return Math.round(delay * (1 - random() / 4));
}

export interface JobWorkerOptions {
  jobs: JobQueue;
  databaseUrl: string;
  /** Shown in pg_stat_activity for the LISTEN connection. */
  applicationName: string;
  leaseMs: number;
  concurrency: number;
  run(job: Job): Promise<void>;
  logger: { info(details: object, message: string): void; warn(details: object, message: string): void };
  /** Told how long each step held its slot, and how it ended (the services' ramp_job_step_duration_seconds). */
  observe?: (step: string, outcome: 'done' | 'pending' | 'failed', seconds: number) => void;
}

/**
 * Runs a service's jobs on every replica: one claimer takes as many due jobs as the replica has free slots
 * (`concurrency`) in one statement, and runs them at once; it claims again when a NOTIFY says a job was written or
 * woken, when a slot frees while it waited for one (or whenever one frees while its LISTEN connection is down), or when a
 * job it ran is released due sooner than its sleep, and otherwise sleeps until the next one is due (polling as a
 * fallback). Idle slots cost nothing. A failed
 * job is retried with exponential backoff (retryDelayMs: capped at a minute, at 4 s while a service it calls is down)
 * for as long as it takes, because a step that gives money back must never be dropped; a pending one (StepPending)
 * is released to be woken by the event it waits for.
 */
export class JobWorker {
  private stopped = false;
  private readonly waker = new Waker();
  private readonly listener: WakeupListener;
  private readonly running = new Set<Promise<void>>();
  private claimer: Promise<void> | undefined;

  constructor(private readonly options: JobWorkerOptions) {
    this.listener = new WakeupListener({
      databaseUrl: options.databaseUrl,
      applicationName: options.applicationName,
      channel: options.jobs.channel,
      waker: this.waker,
      logger: options.logger,
    });
  }

  async start(): Promise<void> {
    await this.listener.start();
    this.claimer = this.claimLoop();
  }

  /** Stops claiming jobs, lets the ones running finish, and closes the listener. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.waker.wakeAll();
    await this.claimer;
    await Promise.allSettled([...this.running]);
    await this.listener.stop();
  }

  /** Jobs running now (at most `concurrency`). */
  get busy(): number {
    return this.running.size;
  }

  private async claimLoop(): Promise<void> {
    const { jobs, logger, concurrency, leaseMs } = this.options;
    while (!this.stopped) {
      // Read before the claim: a job ending or a NOTIFY during it ends the sleep after it at once.
      const generation = this.waker.generation;
      const free = concurrency - this.running.size;
      if (free <= 0) {
        // Every slot busy: woken when one ends.
        await this.sleep(generation, IDLE_POLL_MS);
        continue;
      }
      let claimed: Job[];
      let nextDueMs: number;
      try {
        ({ jobs: claimed, msUntilNextDue: nextDueMs } = await jobs.claim(leaseMs, free, IDLE_POLL_MS));
      } catch (error) {
        logger.warn({ err: error }, 'could not claim a job');
        await this.sleep(generation, IDLE_POLL_MS);
        continue;
      }
      for (const job of claimed) {
        const run: Promise<void> = this.runOne(job).finally(() => {
          // A slot frees: the claimer is woken only if it waits for one (every slot was busy). Otherwise its last claim
          // found nothing more due, and a job that ends makes nothing due by ending: the next step it scheduled comes
          // with a NOTIFY (unless the LISTEN connection is down: then it is woken as before), and runOne wakes the
          // claimer for a job it released due sooner than the claimer's sleep.
          const wasFull = this.running.size >= concurrency;
          this.running.delete(run);
          if (wasFull || !this.listener.listening) this.waker.wakeAll();
        });
        this.running.add(run);
      }
      if (claimed.length === free) continue;
      // Nothing more due now: until the next job is due, one is written or woken (NOTIFY), or a job is released due.
      await this.sleep(generation, nextDueMs);
    }
  }

  private async runOne(job: Job): Promise<void> {
    const { jobs, logger, observe } = this.options;
    const started = process.hrtime.bigint();
    const held = (outcome: 'done' | 'pending' | 'failed') => observe?.(job.step, outcome, Number(process.hrtime.bigint() - started) / 1e9);
    try {
      // The legs whose send.finished woke it are known to the step (ChainLegs answers them without asking).
      await withFinishedLegs(job.finishedLegs, () => this.options.run(job));
      held('done');
    } catch (error) {
      held(error instanceof StepPending ? 'pending' : 'failed');
      if (error instanceof StepPending) {
        // Under way elsewhere: released to be woken by what it waits for, or looked at again after retryInMs.
        logger.info(
          { job: job.id, step: job.step, stream: job.stream_id, retryInMs: error.retryInMs, pending: error.message },
          'step pending; will look again',
        );
        // Woken while it ran (what it waits for happened meanwhile): due at once, and claimed again now; due sooner than
        // the claimer's longest sleep: the claimer looks again.
        const dueNow = await jobs.retryLater(job.id, error.retryInMs, error.message, true).catch(() => false);
        if (dueNow || error.retryInMs < IDLE_POLL_MS) this.waker.wakeAll();
        return;
      }
      const delay = retryDelayMs(error, job.attempts);
      logger.warn({ err: error, job: job.id, step: job.step, stream: job.stream_id, attempt: job.attempts, retryInMs: delay }, 'step failed; will retry');
      await jobs.retryLater(job.id, delay, error instanceof Error ? error.message : String(error)).catch(() => undefined);
      // Its backoff may be shorter than the claimer's sleep, which was set before it: the claimer looks again.
      this.waker.wakeAll();
    }
  }

  private sleep(generation: number, ms: number): Promise<void> {
    return this.waker.sleepUnless(generation, Math.max(ms, 5));
  }
}
