import { Migration } from '@ramp/database';
import { eventStoreMigration } from '@ramp/event-store';

/**
 * The ramp service's event log (with its relay checkpoint, inbox and projection checkpoints), and its jobs: the
 * durable next steps of transactions, written in the same transaction as the events that call for them.
 */
export class Migration20261122200001 extends Migration {
  override async up(): Promise<void> {
    for (const statement of eventStoreMigration('ramp')) this.addSql(`${statement};`);
    this.addSql(`
      create table ramp.jobs (
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
      );`);
    this.addSql(`create index jobs_due on ramp.jobs (due_at);`);
  }
}
