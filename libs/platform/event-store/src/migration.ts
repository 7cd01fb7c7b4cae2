import { APPLICATION_ROLE, schemaName } from '@ramp/database';

/**
 * The statements that create a service's event log and the tables around it, for that service's migration:
 *
 * - `events`: the append-only log. A global position, the event id, the stream id and version (unique together:
 *   optimistic concurrency), type, data, metadata, the id of the transaction that wrote it (xid8: how readers avoid
 *   skipping an event committed late) and the time. Triggers refuse UPDATE, DELETE and TRUNCATE for every role,
 *   and {@link APPLICATION_ROLE} is granted only SELECT and INSERT.
 * - `relay_checkpoint`: how far the relay has published the log to JetStream.
 * - `inbox`: the events each consumer has processed, written in the consumer's own transaction.
 * - `projection_checkpoints`: how far each projection of the service's own log has read.
 */
export function eventStoreMigration(schema: string): string[] {
  const s = schemaName(schema);
  return [
    `create schema if not exists ${s}`,
    `create table ${s}.events (
       global_position bigint generated always as identity primary key,
       event_id uuid not null unique,
       stream_id text not null,
       stream_version integer not null check (stream_version > 0),
       type text not null,
       data jsonb not null,
       metadata jsonb not null,
       transaction_id xid8 not null default pg_current_xact_id(),
       created_at timestamptz not null default clock_timestamp(),
       unique (stream_id, stream_version)
     )`,
    `create index events_transaction_position on ${s}.events (transaction_id, global_position)`,
    `create function ${s}.refuse_event_change() returns trigger language plpgsql as $$
     begin
       raise exception 'the event log is append-only: % on %.events is refused', tg_op, tg_table_schema
         using errcode = 'insufficient_privilege';
     end $$`,
    `create trigger events_append_only before update or delete on ${s}.events for each row execute function ${s}.refuse_event_change()`,
    `create trigger events_no_truncate before truncate on ${s}.events for each statement execute function ${s}.refuse_event_change()`,
    `do $$ begin
       if not exists (select from pg_roles where rolname = '${APPLICATION_ROLE}') then create role ${APPLICATION_ROLE} nologin; end if;
     exception when duplicate_object or unique_violation then null;
     end $$`,
    `revoke all on ${s}.events from public`,
    `grant usage on schema ${s} to ${APPLICATION_ROLE}`,
    `grant select, insert on ${s}.events to ${APPLICATION_ROLE}`,
    // Every other table of the schema (created after this point) is the application's to read and write.
    `alter default privileges in schema ${s} grant select, insert, update, delete on tables to ${APPLICATION_ROLE}`,
    `alter default privileges in schema ${s} grant usage, select on sequences to ${APPLICATION_ROLE}`,
    `create table ${s}.relay_checkpoint (
       id integer primary key check (id = 1),
       transaction_id xid8 not null,
       global_position bigint not null,
       updated_at timestamptz not null default now()
     )`,
    `insert into ${s}.relay_checkpoint (id, transaction_id, global_position) values (1, '0', 0)`,
    `create table ${s}.inbox (
       consumer text not null,
       event_id uuid not null,
       processed_at timestamptz not null default now(),
       primary key (consumer, event_id)
     )`,
    `create table ${s}.projection_checkpoints (
       projection text primary key,
       transaction_id xid8 not null,
       global_position bigint not null,
       updated_at timestamptz not null default now()
     )`,
  ];
}
