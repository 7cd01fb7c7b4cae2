import type { Pool } from 'pg';
import type { EventLog, NewEvent } from '@ramp/event-store';
import type { JobQueue } from './jobs';
import { StreamProcess, type InitiatedState, type ProcessDefinition } from './stream-process';

/** A process's own rules; the factory adds the service's system actor. */
export type ProcessRules<State extends InitiatedState, Command, Event extends NewEvent, Step extends { kind: string }> = Omit<
  ProcessDefinition<State, Command, Event, Step>,
  'systemActor'
>;

/**
 * Makes each kind of transaction's StreamProcess of a service (a provider of processProviders): on the service's log
 * and job queue, with its system actor (`system:<service>`) on the events its jobs append (the tenant of a transaction
 * is its initiation's), so that a use case writes only its decider, its steps' timing and its view.
 */
export class ProcessFactory {
  constructor(
    private readonly pool: Pool,
    private readonly log: EventLog,
    private readonly jobs: JobQueue,
    private readonly service: string,
  ) {}

  define<State extends InitiatedState, Command, Event extends NewEvent, Step extends { kind: string }>(
    rules: ProcessRules<State, Command, Event, Step>,
  ): StreamProcess<State, Command, Event, Step> {
    return new StreamProcess(this.pool, this.log, this.jobs, { ...rules, systemActor: `system:${this.service}` });
  }
}
