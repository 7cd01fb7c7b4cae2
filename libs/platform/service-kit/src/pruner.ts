import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { Counter } from 'prom-client';
import type { Pool } from 'pg';
import { Config } from '@ramp/config';
import { withTransaction } from '@ramp/database';
import { Metrics } from '@ramp/observability';
import { LOGGER, PG_POOL } from './tokens';
import type { Logger } from './logger';

/**
 * One table's pruning: `statement` deletes at most `$2` rows older than `$1` (the cutoff, a timestamp) and answers the
 * count in `rowCount`; it must pick its rows through an index on the cutoff's column so that a batch reads no more than
 * it deletes.
 */
export interface PruneJob {
  /** The table, as metrics and logs name it (`gateway.idempotency_keys`). */
  table: string;
  /** How long a row is kept past the moment the statement compares with the cutoff. */
  retentionMs: (config: Config) => number;
  statement: string;
}

/** Rows per delete: a batch holds its row locks for milliseconds, never a hot table for long. */
export const PRUNE_BATCH = 500;
/** The pause between two batches, so that pruning never takes a connection away from the service for long. */
const PAUSE_MS = 20;

export const PRUNE_JOBS = Symbol('PRUNE_JOBS');

/**
 * Deletes what a service keeps only for a while (stored responses, expired quotes, old delivery attempts) on a schedule
 * (PRUNE_INTERVAL_MS; 0 turns it off), in batches of PRUNE_BATCH rows, each in its own transaction. One replica prunes a
 * table at a time (a transaction-scoped advisory lock per batch: another replica's batch skips). The event logs are
 * never pruned.
 */
@Injectable()
export class Pruner implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly intervalMs: number;
  private readonly pruned: Counter<'table'>;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(PRUNE_JOBS) private readonly jobs: PruneJob[],
    @Inject(Config) private readonly config: Config,
    @Inject(Metrics) metrics: Metrics,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.intervalMs = config.int('pruneIntervalMs', 0);
    this.pruned = new Counter({
      name: 'ramp_pruned_rows_total',
      help: 'Rows deleted past their retention, by table.',
      labelNames: ['table'],
      registers: [metrics.registry],
    });
  }

  onApplicationBootstrap(): void {
    if (this.intervalMs === 0) return;
    const run = () => {
      void this.round().finally(() => {
        if (this.stopped) return;
        this.timer = setTimeout(run, this.intervalMs);
        this.timer.unref();
      });
    };
    this.timer = setTimeout(run, this.intervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** One round: each table until a batch finds fewer rows than it may delete. Answers the rows deleted per table. */
  async round(now = new Date()): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const job of this.jobs) {
      const cutoff = new Date(now.getTime() - job.retentionMs(this.config));
      counts[job.table] = 0;
      try {
        for (;;) {
          const deleted = await this.batch(job, cutoff);
          if (deleted === undefined) break;
          counts[job.table] += deleted;
          this.pruned.inc({ table: job.table }, deleted);
          if (deleted < PRUNE_BATCH || this.stopped) break;
          await new Promise((wait) => setTimeout(wait, PAUSE_MS));
        }
      } catch (error) {
        this.logger.warn({ table: job.table, error: error instanceof Error ? error.message : String(error) }, 'pruning failed; tried again next round');
      }
      if (counts[job.table]! > 0) this.logger.info({ table: job.table, rows: counts[job.table], before: cutoff.toISOString() }, 'pruned');
    }
    return counts;
  }

  /**
   * One batch in its own transaction; undefined when another replica is pruning the table. Through withTransaction,
   * which hears the error a checked-out connection emits when PostgreSQL drops it (unheard, it kills the process).
   */
  private async batch(job: PruneJob, cutoff: Date): Promise<number | undefined> {
    return withTransaction(this.pool, async (tx) => {
      const { rows } = await tx.query<{ locked: boolean }>(`select pg_try_advisory_xact_lock(hashtext($1)) as locked`, [`prune:${job.table}`]);
      if (!rows[0]!.locked) return undefined;
      const result = await tx.query(job.statement, [cutoff, PRUNE_BATCH]);
      return result.rowCount ?? 0;
    });
  }
}

/** The Pruner of a service, with its tables' jobs. */
export function prunerProviders(jobs: PruneJob[]): Provider[] {
  return [{ provide: PRUNE_JOBS, useValue: jobs }, Pruner];
}
