import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { Config } from '@ramp/config';
import { Waker } from '@ramp/event-store';
import { LOGGER, type Logger } from '@ramp/service-kit';
import { OfframpService } from '../offramp/offramp.service';
import { OnrampService } from '../onramp/onramp.service';
import { JobQueue, JOBS_CHANNEL } from './jobs';

const IDLE_POLL_MS = 1000;

/**
 * Runs the ramp's jobs on every replica: wakes on NOTIFY when a job is written, sleeps until the next one is due,
 * polls as a fallback. Runs up to `concurrency` jobs at once; a failed job is retried with exponential backoff
 * (capped at a minute) for as long as it takes, because a step that gives money back must never be dropped.
 */
@Injectable()
export class ProcessWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private stopped = false;
  private listener: Client | undefined;
  private readonly waker = new Waker();
  private readonly loops: Promise<void>[] = [];

  constructor(
    @Inject(OfframpService) private readonly offramps: OfframpService,
    @Inject(OnrampService) private readonly onramps: OnrampService,
    @Inject(JobQueue) private readonly jobs: JobQueue,
    @Inject(Config) private readonly config: Config,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.listen();
    for (let i = 0; i < 4; i++) this.loops.push(this.loop());
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.wakeAll();
    await Promise.allSettled(this.loops);
    await this.listener?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.config.string('databaseUrl'), application_name: 'ramp-jobs' });
    client.on('notification', () => this.wakeAll());
    client.on('error', () => {
      // Polling carries on without the wake-ups; reconnect after a while.
      this.listener = undefined;
      if (!this.stopped) setTimeout(() => void this.listen().catch(() => undefined), 2000).unref();
    });
    try {
      await client.connect();
      await client.query(`listen ${JOBS_CHANNEL}`);
      this.listener = client;
    } catch (error) {
      this.logger.warn({ err: error }, 'job listener unavailable; polling');
      client.end().catch(() => undefined);
    }
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let job;
      try {
        job = await this.jobs.claim(this.config.int('jobLeaseMs', 1000));
      } catch (error) {
        this.logger.warn({ err: error }, 'could not claim a job');
        await this.sleep(IDLE_POLL_MS);
        continue;
      }
      if (!job) {
        const ms = await this.jobs.msUntilNextDue(IDLE_POLL_MS).catch(() => IDLE_POLL_MS);
        await this.sleep(ms);
        continue;
      }
      try {
        if (this.onramps.process.owns(job.stream_id)) await this.onramps.runStep(job);
        else await this.offramps.runStep(job);
      } catch (error) {
        const delay = Math.min(60_000, 250 * 2 ** Math.min(job.attempts, 8));
        this.logger.warn({ err: error, job: job.id, step: job.step, stream: job.stream_id, attempt: job.attempts, retryInMs: delay }, 'step failed; will retry');
        await this.jobs.retryLater(job.id, delay, error instanceof Error ? error.message : String(error)).catch(() => undefined);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return this.waker.sleep(Math.max(ms, 5));
  }

  private wakeAll(): void {
    this.waker.wakeAll();
  }

}
