import type { Pool } from 'pg';
import { schemaName } from './sql';

/**
 * The role the services connect as in production, through a login role granted it (`grant ramp_app to
 * ramp_service`): it may read and write the services' tables, only read and append to the append-only ones (the event
 * logs, the ledger's journal), only read the migrations' record, and create, alter or drop nothing. The schemas and
 * their objects belong to the role that runs the migrations (the migration Job's).
 */
export const APPLICATION_ROLE = 'ramp_app';

/**
 * The statements of a schema's migration that give APPLICATION_ROLE what it needs and no more, on the tables there are
 * and (default privileges) on those later migrations create: every table read and written, `appendOnly` ones read
 * and appended to only, the migrations' record read only.
 */
export function applicationAccess(schema: string, appendOnly: readonly string[] = []): string[] {
  const s = schemaName(schema);
  const role = APPLICATION_ROLE;
  return [
    `do $$ begin
       if not exists (select from pg_roles where rolname = '${role}') then create role ${role} nologin; end if;
     exception when duplicate_object or unique_violation then null;
     end $$`,
    `revoke create on schema ${s} from public`,
    `grant usage on schema ${s} to ${role}`,
    `grant select, insert, update, delete on all tables in schema ${s} to ${role}`,
    `grant usage, select on all sequences in schema ${s} to ${role}`,
    `alter default privileges in schema ${s} grant select, insert, update, delete on tables to ${role}`,
    `alter default privileges in schema ${s} grant usage, select on sequences to ${role}`,
    ...appendOnly.map((table) => `revoke update, delete, truncate on ${s}.${schemaName(table)} from ${role}`),
    `revoke insert, update, delete, truncate on ${s}.mikro_orm_migrations from ${role}`,
  ];
}

/**
 * The migrations of `names` not yet recorded as applied in the schema (all of them when it has no record yet): what a
 * service that does not migrate at start-up (MIGRATE_ON_START=false) checks before serving, with a read only.
 */
export async function pendingMigrations(pool: Pool, schema: string, names: readonly string[]): Promise<string[]> {
  const s = schemaName(schema);
  try {
    const applied = new Set((await pool.query<{ name: string }>(`select name from ${s}.mikro_orm_migrations`)).rows.map((row) => row.name));
    return names.filter((name) => !applied.has(name));
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return [...names];
    throw error;
  }
}
