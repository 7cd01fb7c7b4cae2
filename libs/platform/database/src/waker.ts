import { Client } from 'pg';
/**
 * Sleeps that end early when woken (by a NOTIFY, a job ending, a stop): the loops of the relay, the job workers, the
 * notifier's deliveries and RecordedWaits. A loop that must not lose a wake arriving between its read and its sleep
 * reads {@link generation} before the read and sleeps with {@link sleepUnless}: a wake since then ends it at once,
 * whichever sleeper that wake ended first.
 */
export class Waker {
  private readonly waiters = new Set<() => void>();
  private wakes = 0;

  /** Resolves after `ms`, or at the next {@link wakeAll}, whichever comes first. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  /** The wakes so far, to pass to {@link sleepUnless} after a read. */
  get generation(): number {
    return this.wakes;
  }

  /** As {@link sleep}, but at once when woken since `generation` was read. */
  sleepUnless(generation: number, ms: number): Promise<void> {
    return this.wakes !== generation ? Promise.resolve() : this.sleep(ms);
  }

  wakeAll(): void {
    this.wakes += 1;
    for (const waiter of [...this.waiters]) waiter();
  }
}

export interface WakeupListenerOptions {
  databaseUrl: string;
  /** Shown in pg_stat_activity for the LISTEN connection. */
  applicationName: string;
  /** The NOTIFY channel. */
  channel: string;
  waker: Waker;
  logger: { warn(details: object, message: string): void };
}

/**
 * LISTENs on a channel and wakes `waker` at each NOTIFY, so that loops sleeping on it start at once when work is
 * written (by any replica; NOTIFY is delivered on commit). Without the connection the loops keep polling; it
 * reconnects after a while. Stop it with `stop()`.
 */
export class WakeupListener {
  private client: Client | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly options: WakeupListenerOptions) {}

  /** Whether it is listening now: without it, a NOTIFY is lost, and a loop that relies on one must look by itself. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  async start(): Promise<void> {
    const { options } = this;
    const client = new Client({ connectionString: options.databaseUrl, application_name: options.applicationName });
    client.on('notification', () => options.waker.wakeAll());
    client.on('error', () => {
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      this.retryLater();
    });
    try {
      await client.connect();
      await client.query(`listen ${options.channel}`);
      if (this.stopped) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
    } catch (error) {
      // PostgreSQL down or still starting (a restart): the loops poll meanwhile, and the listener tries again.
      options.logger.warn({ err: error, channel: options.channel }, 'wake-up listener unavailable; polling until it is back');
      client.end().catch(() => undefined);
      this.retryLater();
    }
  }

  /** One attempt at a time, 2 s from now, however many errors a broken connection emits. */
  private retryLater(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.client) void this.start().catch(() => undefined);
    }, 2000);
    this.retry.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => undefined);
  }
}
