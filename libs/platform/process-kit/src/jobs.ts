import type { Pool } from 'pg';
import type { Sql } from '@ramp/database';
import { EventLog, type EventRow, type StoredEvent } from '@ramp/event-store';
import type { FinishedLegs } from './finished-legs';

export interface Job {
  id: string;
  stream_id: string;
  step: string;
  decided_at_version: number;
  attempts: number;
  /**
   * The job's stream as the claim read it, when the queue was given the service's log: the step starts from it
   * instead of reading the stream again (one round trip and one commit fewer per step).
   */
  history?: StoredEvent[];
  /**
   * The legs whose `send.finished` woke the job since it last ran (JobQueue.wake), as that event told them: the step
   * answers them without asking the chain service again (ChainLegs). Handed to one run only: the claim clears them.
   */
  finishedLegs?: FinishedLegs;
}

/** The `jobs` table of a service's schema, created by the service's migration. */
export function jobsTableMigration(schema: string): string[] {
  return [
    `create table ${schema}.jobs (
        id bigint generated always as identity primary key,
        stream_id text not null,
        step text not null,
        -- The stream version the step was decided at: the same decision is never scheduled twice.
        decided_at_version integer not null,
        due_at timestamptz not null,
        locked_until timestamptz,
        attempts integer not null default 0,
        last_error text,
        created_at timestamptz not null default now(),
        unique (stream_id, decided_at_version)
      )`,
    `create index jobs_due on ${schema}.jobs (due_at)`,
  ];
}

/**
 * The jobs' `pending` flag: the job's step was released waiting for work under way elsewhere (StepPending, a send on
 * its way to its depth), so the event that ends that work may wake it (JobQueue.wake). A job due at a time of its own
 * (an expiry, a provider's delay) is never pending, and no wake moves it.
 */
export function jobsPendingMigration(schema: string): string[] {
  return [`alter table ${schema}.jobs add column pending boolean not null default false`];
}

/**
 * The jobs' `finished_legs`: what the `send.finished` events that woke a job told of its legs (JobQueue.wake), for its
 * next run only (Job.finishedLegs).
 */
export function jobsFinishedLegsMigration(schema: string): string[] {
  return [`alter table ${schema}.jobs add column finished_legs jsonb`];
}

/**
 * The durable to-do list of a service's transactions: a transaction's next step is inserted in the same database
 * transaction as the events that call for it, so a crash can lose neither. Workers on every replica claim due jobs
 * with a lease (SKIP LOCKED: no two run the same job at once); a job whose worker died is claimed again when its lease
 * runs out. Steps are idempotent, so running one twice is harmless.
 */
export class JobQueue {
  /** The NOTIFY channel that wakes the workers when a job is written. */
  readonly channel: string;

  /** @param log the service's log, whose streams the claim reads with its jobs (Job.history). */
  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly log?: EventLog,
  ) {
    this.channel = `${schema}_jobs`;
  }

  async schedule(tx: Sql, streamId: string, step: string, version: number, dueAt: Date): Promise<void> {
    // One statement: the insert and the wake-up of the workers (NOTIFY is sent at commit).
    await tx.query(
      `with scheduled as (
         insert into ${this.schema}.jobs (stream_id, step, decided_at_version, due_at) values ($1, $2, $3, $4) on conflict (stream_id, decided_at_version) do nothing
       )
       select pg_notify($5, '')`,
      [streamId, step, version, dueAt, this.channel],
    );
  }

  /**
   * Claims up to `limit` of the oldest due jobs for `leaseMs` (none when nothing is due), and says in the same statement
   * (one round trip, one commit) how long until the next job not claimed is due, capped at `capMs`: the claimer sleeps
   * that long when it took fewer than it asked for. A claimed job's `due_at` becomes the lease's end while it runs: a
   * wake during the run moves it back to now (wake), which retryLater reads as "run again at once". The legs a wake told
   * of (Job.finishedLegs) go to this run alone.
   */
  async claim(leaseMs: number, limit = 1, capMs = 1000): Promise<{ jobs: Job[]; msUntilNextDue: number }> {
    // No greatest(0, …) in SQL: PostgreSQL's greatest ignores a NULL, and an empty queue would read as "due now". The
    // look at the next due time reads the snapshot before the update: the jobs claimed here are left out of it by id.
    const history = this.log ? `, 'history', ${this.log.streamJson('claimed.stream_id')}` : '';
    const { rows } = await this.pool.query<{
      jobs: (Omit<Job, 'history' | 'finishedLegs'> & { history?: EventRow[]; finished_legs: FinishedLegs | null })[];
      ms: number | null;
    }>(
      `with due as (
         select id, finished_legs from ${this.schema}.jobs
          where due_at <= now() and (locked_until is null or locked_until < now())
          order by due_at
          limit $2
          for update skip locked
       ), claimed as (
         update ${this.schema}.jobs j set locked_until = now() + make_interval(secs => $1::double precision / 1000), due_at = now() + make_interval(secs => $1::double precision / 1000), pending = false, attempts = attempts + 1, finished_legs = null
           from due where j.id = due.id
          returning j.id, j.stream_id, j.step, j.decided_at_version, j.attempts, due.finished_legs
       )
       select coalesce((select json_agg(json_build_object('id', id::text, 'stream_id', stream_id, 'step', step, 'decided_at_version', decided_at_version, 'attempts', attempts, 'finished_legs', finished_legs${history})) from claimed), '[]'::json) as jobs,
              (select (extract(epoch from (min(due_at) - now())) * 1000)::float8 from ${this.schema}.jobs
                where (locked_until is null or locked_until < now()) and id not in (select id from claimed)) as ms`,
      [leaseMs, limit],
    );
    const ms = rows[0]!.ms;
    const jobs = rows[0]!.jobs.map(({ history: read, finished_legs: legs, ...job }) => ({
      ...job,
      ...(read && { history: EventLog.eventsOfJson(read) }),
      ...(legs && { finishedLegs: legs }),
    }));
    return { jobs, msUntilNextDue: ms === null ? capMs : Math.min(capMs, Math.max(0, Math.ceil(ms))) };
  }

  /** Removes a finished job; called in the transaction that records its outcome. */
  async done(tx: Sql, jobId: string): Promise<void> {
    await tx.query(`delete from ${this.schema}.jobs where id = $1`, [jobId]);
  }

  /**
   * Releases a claimed job to run again in `delayMs` (`pending`: its step waits for work under way elsewhere, which a
   * wake may end early). A pending one woken while it ran (its `due_at` moved before the lease's end: what it waits
   * for happened meanwhile) is due at once; a failed one keeps its backoff whatever woke it. True when it is due at once.
   */
  async retryLater(jobId: string, delayMs: number, error: string, pending = false): Promise<boolean> {
    const { rows } = await this.pool.query<{ due: boolean }>(
      `update ${this.schema}.jobs
          set due_at = case when $4 and locked_until is not null and due_at < locked_until then now() else now() + make_interval(secs => $2::double precision / 1000) end,
              locked_until = null, pending = $4, last_error = $3
        where id = $1
        returning due_at <= now() as due`,
      [jobId, delayMs, error.slice(0, 1000), pending],
    );
    return rows[0]?.due ?? false;
  }

  /**
   * What the jobs of these streams wait for happened (a send of theirs became final): a job released pending is due
   * now, one running at that moment runs again as soon as it ends pending (retryLater), and the workers are woken, in
   * one statement. A job due at a time of its own (an expiry) is left alone. `legs`: what the event told of the legs it
   * made final, kept for the job's next run (Job.finishedLegs), also on a job woken already. Returns how many jobs
   * were woken.
   */
  async wake(db: Sql, streamIds: readonly string[], legs?: FinishedLegs): Promise<number> {
    if (streamIds.length === 0) return 0;
    const told = legs && Object.keys(legs).length > 0 ? JSON.stringify(legs) : null;
    const { rows } = await db.query<{ woken: number }>(
      `with waiting as (
         select id, due_at > now() as woken from ${this.schema}.jobs
          where stream_id = any($1::text[]) and (pending or locked_until > now()) and (due_at > now() or $2::jsonb is not null)
          for update
       ), updated as (
         update ${this.schema}.jobs j
            set due_at = case when w.woken then now() else j.due_at end,
                finished_legs = case when $2::jsonb is null then j.finished_legs else coalesce(j.finished_legs, '{}'::jsonb) || $2::jsonb end
           from waiting w
          where j.id = w.id and (w.woken or $2::jsonb is not null)
          returning w.woken
       ), counted as (select count(*) filter (where woken)::int as woken from updated)
       select woken, case when woken > 0 then pg_notify($3, '') end as notified from counted`,
      [streamIds, told, this.channel],
    );
    return rows[0]?.woken ?? 0;
  }
}
