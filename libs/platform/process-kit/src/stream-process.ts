import type { Pool } from 'pg';
import { AppError, isIdOf, isSameTenant, type Tenant } from '@ramp/contracts';
import { type Sql } from '@ramp/database';
import { handleCommand, type Decider, type EventLog, type EventMetadata, type NewEvent, type StoredEvent } from '@ramp/event-store';
import { withLogContext } from '@ramp/observability';
import { isInitiated, type InitiatedState, type TransactionView, type WithInitiation } from '@ramp/transactions';

export { isInitiated, type InitiatedState, type WithInitiation };
import type { Job, JobQueue } from './jobs';

export interface ProcessDefinition<State extends InitiatedState, Command, Event extends NewEvent, Step extends { kind: string }> {
  /** Streams are `<prefix>-<transactionId>`. */
  prefix: string;
  /** The actor recorded on events a job appends, e.g. `system:ramp`. */
  systemActor: string;
  decider: Decider<State, Command, Event>;
  nextStep(state: State): Step;
  /** When a step should run: now, after a provider's delay, or at an expiry (`state`: the transaction's, as of the step). */
  dueAt(step: Step, state: State): Date;
  /**
   * The Transaction as the API shows it. Every event appended carries it as it is right after that event (its
   * metadata's `view`), so that the ledger's read model applies it without this service's rules.
   */
  view(state: State): TransactionView;
}

export type Cause = Pick<EventMetadata, 'causationId' | 'actor' | 'requestId'>;

/** What a step of a transaction gets to work with. */
export interface StepContext<State extends InitiatedState, Step> {
  transactionId: string;
  state: WithInitiation<State>;
  step: Step;
  tenant: Tenant;
  /**
   * The job that runs the step: the stream version it was decided at and how often it has been claimed (1 the first
   * time). A step whose effect must happen at most once per decision (a live payout's send) reads them.
   */
  job?: Pick<Job, 'decided_at_version' | 'attempts'>;
  /** The stream's version as the step read it. */
  version?: number;
}

/**
 * One kind of event-sourced transaction of a service: loads its state from the service's log, and applies a command
 * with the job of its next step in the same database transaction (and the job that ran, if any, removed). Each event
 * it appends carries the Transaction view as it is after it.
 */
export class StreamProcess<State extends InitiatedState, Command, Event extends NewEvent, Step extends { kind: string }> {
  constructor(
    private readonly pool: Pool,
    private readonly log: EventLog,
    private readonly jobs: JobQueue,
    readonly definition: ProcessDefinition<State, Command, Event, Step>,
  ) {}

  streamOf(transactionId: string): string {
    return `${this.definition.prefix}-${transactionId}`;
  }

  owns(streamId: string): boolean {
    return streamId.startsWith(`${this.definition.prefix}-`);
  }

  transactionOf(streamId: string): string {
    return streamId.slice(this.definition.prefix.length + 1);
  }

  async load(db: Sql, transactionId: string): Promise<State> {
    return this.fold(await this.log.readStream(db, this.streamOf(transactionId)));
  }

  private fold(events: readonly StoredEvent[]): State {
    const { decider } = this.definition;
    return events.reduce((state, event) => decider.evolve(state, event as unknown as Event), decider.initialState);
  }

  /** The Transaction of this tenant as the API shows it; NOT_FOUND as for {@link ownedBy}. */
  async get(tenant: Tenant, transactionId: unknown): Promise<TransactionView> {
    return this.definition.view(await this.ownedBy(tenant, transactionId));
  }

  /** The state of a transaction of this tenant; NOT_FOUND for a malformed id, an unknown one or another tenant's. */
  async ownedBy(tenant: Tenant, transactionId: unknown): Promise<WithInitiation<State>> {
    return (await this.readOwned(tenant, transactionId)).state;
  }

  /**
   * As {@link ownedBy}, with the stream it was folded from: a command that follows gives it to {@link apply}, which
   * decides on it instead of reading the stream again (appended at its version, or decided again if it moved).
   */
  async readOwned(tenant: Tenant, transactionId: unknown): Promise<{ state: WithInitiation<State>; history: StoredEvent[] }> {
    if (!isIdOf('txn', transactionId)) throw new AppError('TRANSACTION_NOT_FOUND', `Transaction ${String(transactionId)} was not found`);
    const history = await this.log.readStream(this.pool, this.streamOf(transactionId));
    const state = this.fold(history);
    if (!isInitiated(state) || !isSameTenant(state.initiated.tenant, tenant)) {
      throw new AppError('TRANSACTION_NOT_FOUND', `Transaction ${transactionId} was not found`);
    }
    return { state, history };
  }

  /**
   * Runs a claimed job: performs the step the transaction needs now and records its outcome with the next step's job
   * in one transaction (the job that ran is removed there too). A job whose step is no longer the next one is stale
   * and only removed. Steps are idempotent, so a job run twice after a crash has one effect; an error from `perform`
   * (a service down) propagates and the worker retries the job later.
   */
  runJob(job: Job, perform: (context: StepContext<State, Step>) => Promise<Command>): Promise<void> {
    const transactionId = this.transactionOf(job.stream_id);
    // The step's log lines, the requests it makes and the events it appends belong to the transaction.
    return withLogContext({ correlationId: transactionId, causationId: `job:${job.id}` }, () => this.runStep(job, transactionId, perform), { fresh: true });
  }

  private async runStep(job: Job, transactionId: string, perform: (context: StepContext<State, Step>) => Promise<Command>): Promise<void> {
    // As the claim read it (JobQueue given the log), or read now.
    const events = job.history ?? (await this.log.readStream(this.pool, this.streamOf(transactionId)));
    const state = this.fold(events);
    const step = this.definition.nextStep(state);
    if (!isInitiated(state) || step.kind !== job.step || step.kind === 'none') {
      await this.jobs.done(this.pool, job.id);
      return;
    }
    const { tenant } = state.initiated;
    // The request that started the transaction stays findable from every later event and log line of it.
    const requestId = events[0]?.metadata.requestId;
    await withLogContext({ requestId }, async () => {
      const command = await perform({ transactionId, state, step, tenant, job, version: events.length });
      // Decided on the stream as read above (no second read); appended at its version, or decided again if it moved.
      await this.apply(transactionId, tenant, command, { causationId: `job:${job.id}`, actor: this.definition.systemActor, requestId }, job.id, events);
    });
  }

  async apply(transactionId: string, tenant: Tenant, command: Command, cause: Cause, jobId?: string, history?: readonly StoredEvent[]): Promise<State> {
    const streamId = this.streamOf(transactionId);
    const { state } = await handleCommand(this.pool, this.log, {
      streamId,
      history,
      decider: this.definition.decider,
      command,
      metadata: { correlationId: transactionId, tenant, ...cause },
      viewOf: (next) => this.definition.view(next),
      alsoInTransaction: async (tx, appended, next) => {
        if (jobId) await this.jobs.done(tx, jobId);
        const last = appended[appended.length - 1];
        if (!last) return;
        const step = this.definition.nextStep(next);
        if (step.kind !== 'none') await this.jobs.schedule(tx, streamId, step.kind, last.streamVersion, this.definition.dueAt(step, next));
      },
    });
    return state;
  }
}
