import type { Constructor, EntitySchema } from '@mikro-orm/core';
import { Migration, Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';

type MigrationClass = Constructor<Migration>;

export interface ServiceDatabaseOptions {
  /** The PostgreSQL schema the service owns; no other service reads it. */
  schema: string;
  url: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  entities: EntitySchema<any>[];
  migrations: MigrationClass[];
  poolMax?: number;
}

/** Opens the service's MikroORM instance on its own schema. Migrations are applied separately (applyMigrations). */
export async function openDatabase(options: ServiceDatabaseOptions): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl: options.url,
    schema: options.schema,
    entities: options.entities,
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: {
      tableName: `${options.schema}.mikro_orm_migrations`,
      migrationsList: options.migrations.map((migration) => ({ name: migration.name, class: migration })),
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
    pool: { min: 0, max: options.poolMax ?? 10 },
    debug: false,
    allowGlobalContext: false,
  });
}

/**
 * Applies pending migrations of one schema, under a PostgreSQL advisory lock so that replicas starting together
 * (or a migration Job and a replica) never run the same migration twice.
 */
export async function applyMigrations(orm: MikroORM, schema: string): Promise<string[]> {
  const lockKey = `migrations:${schema}`;
  // The lock is held by this transaction's connection while the migrator works on its own connections.
  return orm.em.getConnection().getKnex().transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [lockKey]);
    const applied = await orm.getMigrator().up();
    return applied.map((migration) => migration.name);
  });
}

/** Creates the database named in the URL when it does not exist yet (the platform's scripts call this first). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`database name "${name}" must be letters, digits or underscores`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  // A connection lost now fails the query that was waiting on it; the error event must not also kill the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount === 0) {
      try {
        await client.query(`create database "${name}"`);
      } catch (error) {
        // Another process created it between the check and the create.
        if ((error as { code?: string }).code !== '42P04') throw error;
      }
    }
  } finally {
    await client.end();
  }
}
