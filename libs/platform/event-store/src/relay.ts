import { headers as natsHeaders, type JetStreamClient } from 'nats';
import type { Client, ClientConfig, Pool } from 'pg';
import type { Metrics } from '@ramp/observability';
import { EventLog } from './event-log';
import type { StoredEvent } from './events';
import { LeaderSession, schemaName, Waker } from '@ramp/database';

/** How soon after activity the relay looks again, for appends that relied on a neighbour's NOTIFY. */
const SETTLE_MS = 25;

export interface RelayLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface RelayOptions {
  /** A connection of its own: it holds the leader lock and the LISTEN for as long as the relay runs. */
  connection: ClientConfig;
  log: EventLog;
  js: JetStreamClient;
  /** The JetStream subject of an event. */
  subjectOf: (event: StoredEvent) => string;
  /** The fallback when no notification arrives (and how often a follower tries to become leader). */
  pollMs?: number;
  batchSize?: number;
  logger: RelayLogger;
  /** Reports which replica leads and, read on `pool` by the leader, the backlog (ramp_relay_*). */
  metrics?: { metrics: Metrics; pool: Pool };
  /**
   * What else a batch publishes (a service's integration events), once JetStream has acknowledged the batch's events and
   * before the checkpoint moves past them: a failure publishes the batch again (its messages deduplicated by id).
   */
  afterPublish?: (client: Client, events: readonly StoredEvent[]) => Promise<void>;
}

/**
 * Publishes a service's committed events to JetStream, in log order, with `msgID` = event id so that the stream drops
 * what a crash made it publish twice. One relay leads among the replicas (a session advisory lock: it passes to
 * another replica when the leader's connection ends, crash included); the others wait. The leader wakes on the log's
 * NOTIFY, polls as a fallback, reads with {@link EventLog.readUnpublished} (so an event committed late is never skipped) and
 * moves its checkpoint only after JetStream has acknowledged every event up to it.
 */
export class Relay {
  private leader: LeaderSession | undefined;
  private stopped = false;
  private readonly waker = new Waker();
  private loop: Promise<void> | undefined;
  private leading = false;
  private notified = false;
  private readonly lockKey: string;

  constructor(private readonly options: RelayOptions) {
    this.lockKey = `relay:${schemaName(options.log.schema)}`;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.loop = this.run();
    const { metrics, log } = this.options;
    // Only the leader reports the backlog (a follower's read gives nothing), so the series comes from one replica.
    metrics?.metrics.watchRelay(
      log.schema,
      async () => (this.leading ? log.relayBacklog(metrics.pool) : undefined),
      () => this.leading,
    );
  }

  async stop(): Promise<void> {
    this.options.metrics?.metrics.unwatchRelay(this.options.log.schema);
    this.stopped = true;
    this.wakeAll();
    await this.loop;
  }

  private async run(): Promise<void> {
    const pollMs = this.options.pollMs ?? 1000;
    while (!this.stopped) {
      try {
        await this.session(pollMs);
      } catch (error) {
        if (!this.stopped) this.options.logger.warn({ err: error, schema: this.options.log.schema }, 'relay session ended; retrying');
      } finally {
        this.leading = false;
        const leader = this.leader;
        this.leader = undefined;
        await leader?.end();
      }
      if (!this.stopped) await this.sleep(pollMs);
    }
  }

  private async session(pollMs: number): Promise<void> {
    const leader = await LeaderSession.open({
      connection: this.options.connection,
      key: this.lockKey,
      applicationName: `relay-${this.options.log.schema}`,
      onLost: () => this.wakeAll(),
    });
    this.leader = leader;
    const client = leader.client;
    client.on('notification', () => {
      this.notified = true;
      this.wakeAll();
    });
    // Wait to lead: try the lock every poll interval.
    if (
      !(await leader.waitToLead(
        pollMs,
        (ms) => this.sleep(ms),
        () => this.stopped,
      ))
    )
      return;
    this.leading = true;
    await client.query(`listen ${this.options.log.channel}`);
    this.options.logger.info({ schema: this.options.log.schema }, 'relay leading');
    let settle = false;
    while (!this.stopped) {
      // Each pass reads and writes on the session's own connection, which proves it (and so the lock) alive.
      leader.assertHeld();
      this.notified = false;
      const count = await this.publishBatch(client);
      if (count > 0 || this.notified) {
        settle = true;
        continue;
      }
      // Appends close together share one NOTIFY (see EventLog), so look once more shortly after any activity.
      await this.sleep(settle ? SETTLE_MS : pollMs);
      settle = !settle;
    }
  }

  private async publishBatch(client: Client): Promise<number> {
    const events = await this.options.log.readUnpublished(client, this.options.batchSize ?? 500);
    if (events.length === 0) return 0;
    // Published together (one connection keeps their order in the stream), acknowledged before the checkpoint moves.
    await Promise.all(
      events.map((event) => {
        const h = natsHeaders();
        h.set('Event-Type', event.type);
        h.set('Stream-Id', event.streamId);
        return this.options.js.publish(this.options.subjectOf(event), JSON.stringify(event), { msgID: event.eventId, headers: h });
      }),
    );
    await this.options.afterPublish?.(client, events);
    const last = EventLog.checkpointOf(events[events.length - 1]!);
    await client.query(
      `update ${schemaName(this.options.log.schema)}.relay_checkpoint set transaction_id = $1, global_position = $2, updated_at = now() where id = 1`,
      [last.transactionId, last.globalPosition],
    );
    return events.length;
  }

  /** Resolves after `ms`, or earlier on a notification or stop. */
  private sleep(ms: number): Promise<void> {
    return this.waker.sleep(ms);
  }

  private wakeAll(): void {
    this.waker.wakeAll();
  }
}
