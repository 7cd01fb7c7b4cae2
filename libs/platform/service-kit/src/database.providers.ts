import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown, type Provider } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { Config } from '@ramp/config';
import {
  applyMigrations,
  ensureDatabase,
  openDatabase,
  pendingMigrations,
  RecordedWaits,
  type ServiceDatabase,
  type ServiceDatabaseOptions,
} from '@ramp/database';
import { HealthRegistry } from './health';
import type { Logger } from './logger';
import { LOGGER, PG_POOL, SERVICE_DATABASE, SERVICE_NAME } from './tokens';

export type DatabaseSpec = Omit<ServiceDatabaseOptions, 'url' | 'poolMax' | 'applicationName'>;

/** Closes MikroORM and the pool, once, after the service's own shutdown hooks (see DatabaseModule). */
@Injectable()
class DatabaseCloser implements OnApplicationShutdown {
  constructor(@Inject(SERVICE_DATABASE) private readonly database: ServiceDatabase) {}

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }
}

/**
 * The service's database: one `pg` Pool of DB_POOL_MAX connections ({@link PG_POOL}, for the plain SQL of the event
 * log, the journal, jobs, projections) and MikroORM on the same connections (entities, migrations). The database is
 * created if missing and the service's migrations applied at start-up (under an advisory lock); readiness checks
 * PostgreSQL through the pool.
 *
 * A module of its own, imported beside CoreModule, so that Nest closes it after the service module's providers have
 * stopped: the work they finish on the way out still has its connections.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forService(spec: DatabaseSpec): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: SERVICE_DATABASE,
          inject: [Config, HealthRegistry, SERVICE_NAME],
          useFactory: async (config: Config, health: HealthRegistry, service: string): Promise<ServiceDatabase> => {
            const database = await openServiceDatabase(spec, config, service, config.int('dbPoolMax', 2, 1000));
            health.add('postgres', async () => {
              await database.pool.query('select 1');
            });
            return database;
          },
        },
        { provide: PG_POOL, inject: [SERVICE_DATABASE], useFactory: (database: ServiceDatabase) => database.pool },
        { provide: MikroORM, inject: [SERVICE_DATABASE], useFactory: (database: ServiceDatabase) => database.orm },
        DatabaseCloser,
      ],
      exports: [SERVICE_DATABASE, PG_POOL, MikroORM],
    };
  }
}

/**
 * Opens a service's database as its start-up does, for the service and its command-line tools alike: with
 * MIGRATE_ON_START it applies the schema's pending migrations (creating the database if missing); without, it only
 * checks that none is pending (the role it connects as may not migrate) and refuses to go on otherwise.
 */
export async function openServiceDatabase(spec: DatabaseSpec, config: Config, applicationName: string, poolMax: number): Promise<ServiceDatabase> {
  const url = config.string('databaseUrl');
  const migrate = config.bool('migrateOnStart');
  if (migrate) await ensureDatabase(url);
  const database = await openDatabase({ ...spec, url, poolMax, applicationName, prepareStatements: config.bool('dbPrepareStatements') });
  try {
    if (migrate) await applyMigrations(database, spec.schema);
    else {
      const pending = await pendingMigrations(
        database.pool,
        spec.schema,
        spec.migrations.map((migration) => migration.name),
      );
      if (pending.length > 0)
        throw new Error(`${spec.schema}: migrations not applied yet (${pending.join(', ')}): run \`main.js migrate\` (the migration Job) first`);
    }
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/** `node main.js migrate`: applies the service's migrations and exits (the Kubernetes migration Job uses this). */
export async function migrateAndExit(spec: DatabaseSpec): Promise<void> {
  const url = new Config().string('databaseUrl');
  await ensureDatabase(url);
  const database = await openDatabase({ ...spec, url, poolMax: 2, applicationName: `${spec.schema}-migrate` });
  try {
    const applied = await applyMigrations(database, spec.schema);
    process.stdout.write(`${JSON.stringify({ schema: spec.schema, applied })}\n`);
  } finally {
    await database.close();
  }
}

/**
 * The service's {@link RecordedWaits} on `channel` (its LISTEN connection named `<service>-waits`), closed at shutdown:
 * what its sandbox endpoints wait on for a write another process signals.
 */
export function recordedWaitsProvider(channel: string): Provider {
  return {
    provide: RecordedWaits,
    inject: [Config, SERVICE_NAME, LOGGER],
    useFactory: (config: Config, service: string, logger: Logger) =>
      new RecordedWaits({ databaseUrl: config.string('databaseUrl'), applicationName: `${service}-waits`, channel, logger }),
  };
}
