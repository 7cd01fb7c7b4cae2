import { Inject, Injectable, OnApplicationShutdown, Provider } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { Config } from '@ramp/config';
import { applyMigrations, ensureDatabase, openDatabase, type ServiceDatabaseOptions } from '@ramp/database';
import { Pool } from 'pg';
import { HealthRegistry } from './health';
import { PG_POOL } from './tokens';

export type DatabaseSpec = Omit<ServiceDatabaseOptions, 'url'>;

@Injectable()
class DatabaseCloser implements OnApplicationShutdown {
  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  async onApplicationShutdown(): Promise<void> {
    await this.orm.close();
  }
}

/**
 * The service's MikroORM instance on its own schema, with its migrations applied at start-up (under an advisory lock)
 * and a readiness check.
 */
export function databaseProviders(spec: DatabaseSpec): Provider[] {
  return [
    {
      provide: MikroORM,
      inject: [Config, HealthRegistry],
      useFactory: async (config: Config, health: HealthRegistry): Promise<MikroORM> => {
        const url = config.string('databaseUrl');
        await ensureDatabase(url);
        const orm = await openDatabase({ ...spec, url });
        await applyMigrations(orm, spec.schema);
        health.add('postgres', async () => {
          await orm.em.getConnection().execute('select 1');
        });
        return orm;
      },
    },
    DatabaseCloser,
  ];
}

/** `node main.js migrate`: applies the service's migrations and exits (the Kubernetes migration Job uses this). */
export async function migrateAndExit(spec: DatabaseSpec): Promise<void> {
  const url = new Config().string('databaseUrl');
  await ensureDatabase(url);
  const orm = await openDatabase({ ...spec, url });
  try {
    const applied = await applyMigrations(orm, spec.schema);
    process.stdout.write(`${JSON.stringify({ schema: spec.schema, applied })}\n`);
  } finally {
    await orm.close();
  }
}

@Injectable()
class PoolCloser implements OnApplicationShutdown {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * A plain `pg` Pool ({@link PG_POOL}) beside the service's MikroORM instance, for plain SQL with real bind parameters
 * and explicit transactions: the event log, the ledger's journal, projections. Add after databaseProviders, which
 * creates the database and applies the migrations first.
 */
export function pgPoolProviders(max = 10): Provider[] {
  return [
    {
      provide: PG_POOL,
      inject: [Config, MikroORM],
      useFactory: (config: Config): Pool => {
        const pool = new Pool({ connectionString: config.string('databaseUrl'), max, application_name: 'ramp-service' });
        pool.on('error', () => undefined);
        return pool;
      },
    },
    PoolCloser,
  ];
}
