import { Client, type ClientConfig, type QueryResult, type QueryResultRow } from 'pg';

export interface LeaderSessionOptions {
  /** A connection of its own: the lock lives exactly as long as it does. */
  connection: ClientConfig;
  /** What is led (`chain:test-base`, `relay:ramp`): the lock is `pg_try_advisory_lock(hashtext(key))`. */
  key: string;
  /** How the connection shows in `pg_stat_activity`. */
  applicationName: string;
  /** Told when the connection fails, and the lock with it (to wake a loop that sleeps). */
  onLost?: (error: Error) => void;
}

/**
 * Leadership among replicas by a PostgreSQL session advisory lock, held on a dedicated connection: one replica leads
 * whatever (the chain loop of one chain, the relay of one event log), and when it dies its connection closes, the lock
 * is free and another replica takes over. A session is opened per attempt to lead and ended after it; a session whose
 * connection failed is lost for good (open another).
 */
export class LeaderSession {
  private lostWith: Error | undefined;

  private constructor(
    /** The session's connection, for whatever the leader does that must end with the lock (LISTEN, say). */
    readonly client: Client,
    private readonly key: string,
  ) {}

  /** Connects; the connection's failure is heard from the start (unheard, it would kill the process). */
  static async open(options: LeaderSessionOptions): Promise<LeaderSession> {
    const client = new Client({ ...options.connection, application_name: options.applicationName });
    const session = new LeaderSession(client, options.key);
    client.on('error', (error) => {
      session.lostWith = error;
      options.onLost?.(error);
    });
    try {
      await client.connect();
    } catch (error) {
      await session.end();
      throw error;
    }
    return session;
  }

  /** The failure of the connection once it failed: the lock went with it. */
  get lost(): Error | undefined {
    return this.lostWith;
  }

  /** Takes the lock if it is free: true when this session leads from now on, for as long as its connection lives. */
  async tryLead(): Promise<boolean> {
    const { rows } = await this.client.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1)) as locked', [this.key]);
    return rows[0]?.locked === true;
  }

  /**
   * Tries to lead every `retryMs` (slept with `sleep`, which may end early) until it does: true. False once `stopped()`
   * or once the connection is lost, whether or not the lock was taken.
   */
  async waitToLead(retryMs: number, sleep: (ms: number) => Promise<void>, stopped: () => boolean): Promise<boolean> {
    while (!stopped() && !this.lostWith) {
      if (await this.tryLead()) break;
      await sleep(retryMs);
    }
    return !stopped() && !this.lostWith;
  }

  /** Throws the connection's failure once it failed: a leader whose lock is gone must stop at once. */
  assertHeld(): void {
    if (this.lostWith) throw this.lostWith;
  }

  /**
   * A read on the session's connection, which proves the connection (and so the lock) alive, or throws: a leader whose
   * work does not use the session's connection makes one each pass (the chain's look at what is due), since a dead
   * connection must not go on leading.
   */
  async query<R extends QueryResultRow>(sql: string, params: unknown[] = []): Promise<QueryResult<R>> {
    this.assertHeld();
    return this.client.query<R>(sql, params);
  }

  /** Ends the connection, and the lock with it. Never throws. */
  async end(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}
