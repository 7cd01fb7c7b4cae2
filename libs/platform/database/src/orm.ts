import type { Constructor, EntitySchema } from '@mikro-orm/core';
import { Migration, Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client, Pool } from 'pg';
import { poolDialect } from './pool-dialect';
import { preparingClient, StatementNames } from './prepared-statements';
import { withTransaction } from './sql';

type MigrationClass = Constructor<Migration>;

export interface ServiceDatabaseOptions {
  /** The PostgreSQL schema the service owns; no other service reads it. */
  schema: string;
  url: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  entities: EntitySchema<any>[];
  migrations: MigrationClass[];
  /** The most connections the pool opens (DB_POOL_MAX for a service); at least 2, as applying migrations needs two. */
  poolMax: number;
  /** PostgreSQL's application_name of the connections (pg_stat_activity). */
  applicationName?: string;
  /** DB_PREPARE_STATEMENTS: statements with parameters are prepared on each connection (createPool); default true. */
  prepareStatements?: boolean;
}

/**
 * A service's database: its one connection pool, and MikroORM (entities, migrations) running on that pool's
 * connections. Plain SQL uses the pool directly, with `$n` parameters.
 */
export interface ServiceDatabase {
  readonly pool: Pool;
  readonly orm: MikroORM;
  /** Closes MikroORM, then the pool (once; later calls wait for the first). */
  close(): Promise<void>;
}

/** The statements the process's pools prepare (createPool): one set, so that a refused plan is refused everywhere. */
const statementNames = new StatementNames();

/**
 * A `pg` Pool on `url` that survives PostgreSQL dropping its idle connections (a restart, a crash). Its statements with
 * parameters are prepared on each connection (preparingClient) unless `prepare` is false (DB_PREPARE_STATEMENTS: a
 * connection pooler in transaction mode that does not keep prepared statements).
 */
export function createPool(url: string, max: number, applicationName = 'ramp-service', prepare = true): Pool {
  const pool = new Pool({ connectionString: url, max, application_name: applicationName, ...(prepare && { Client: preparingClient(statementNames) }) });
  // An idle connection that PostgreSQL drops is removed by the pool; the error event must not also kill the process.
  pool.on('error', () => undefined);
  return pool;
}

/** Opens the service's pool and MikroORM on it, on the service's own schema. Migrations are applied separately (applyMigrations). */
export async function openDatabase(options: ServiceDatabaseOptions): Promise<ServiceDatabase> {
  if (!Number.isInteger(options.poolMax) || options.poolMax < 2) throw new Error(`the pool needs at least 2 connections, got ${options.poolMax}`);
  const pool = createPool(options.url, options.poolMax, options.applicationName, options.prepareStatements ?? true);
  let orm: MikroORM;
  try {
    orm = await MikroORM.init({
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
      // The knex client takes its connections from the pool (see poolDialect); ensureDatabase creates the database.
      driverOptions: { client: poolDialect(pool) },
      ensureDatabase: false,
      debug: false,
      allowGlobalContext: false,
    });
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    pool,
    orm,
    close: () =>
      (closing ??= (async () => {
        await orm.close().catch(() => undefined);
        await pool.end();
      })()),
  };
}

/**
 * Applies pending migrations of one schema, under a PostgreSQL advisory lock so that replicas starting together
 * (or a migration Job and a replica) never run the same migration twice. The lock's transaction holds one of the
 * pool's connections while the migrator works on another.
 */
export async function applyMigrations(database: ServiceDatabase, schema: string): Promise<string[]> {
  return withTransaction(database.pool, async (tx) => {
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`migrations:${schema}`]);
    const applied = await database.orm.getMigrator().up();
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
