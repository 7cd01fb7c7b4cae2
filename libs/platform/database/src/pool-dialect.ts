import type { EntityManager } from '@mikro-orm/core';
import { PostgreSqlKnexDialect } from '@mikro-orm/postgresql';
import type { Pool, PoolClient, QueryConfig } from 'pg';
import type { Sql } from './sql';

interface KnexQuery {
  sql: string;
  bindings?: unknown[];
  options?: Partial<QueryConfig>;
}

/**
 * The knex client class MikroORM runs on, drawing its connections from `pool` (the service's one `pg` Pool) instead
 * of a tarn pool of its own. Everything else is MikroORM's PostgreSQL dialect.
 *
 * A connection is checked out of the pool for a query or a transaction and released after it, as withTransaction
 * does: its `error` event (PostgreSQL dropped it) is heard while it is out, and a connection that raised one is
 * destroyed rather than returned. Closing MikroORM leaves the pool open: its owner closes it, once.
 */
export function poolDialect(pool: Pool): typeof PostgreSqlKnexDialect {
  const lost = new WeakMap<PoolClient, { error?: Error; listener: (error: Error) => void }>();
  let uid = 0;

  return class PoolDialect extends PostgreSqlKnexDialect {
    initializePool(): void {
      // The connections come from `pool`.
    }

    async acquireConnection(): Promise<PoolClient> {
      const client = (await pool.connect()) as PoolClient & { __knexUid?: string };
      client.__knexUid ??= `__pool${++uid}`;
      const state: { error?: Error; listener: (error: Error) => void } = {
        listener: (error) => {
          state.error = error;
        },
      };
      client.on('error', state.listener);
      lost.set(client, state);
      return client;
    }

    async releaseConnection(client: PoolClient): Promise<void> {
      const state = lost.get(client);
      lost.delete(client);
      if (state) client.removeListener('error', state.listener);
      client.release(state?.error);
    }

    async destroy(callback?: (error?: unknown) => void): Promise<void> {
      callback?.();
    }

    /**
     * MikroORM reads dates as text and converts them itself: its connection options carry those type parsers, which a
     * connection of its own would have had. Here they go with each of its queries, and the pool keeps pg's defaults.
     */
    _query(connection: PoolClient, query: KnexQuery): Promise<unknown> {
      const types = (this.connectionSettings as { types?: QueryConfig['types'] } | undefined)?.types;
      if (types) query.options = { types, ...query.options };
      return super._query(connection, query);
    }
  };
}

/**
 * The connection of `em`'s transaction (inside `em.transactional`), for plain SQL with `$n` parameters in that
 * transaction beside the entity work.
 */
export async function transactionSql(em: EntityManager): Promise<Sql> {
  const trx = em.getTransactionContext<{ client: { acquireConnection(): Promise<PoolClient> } }>();
  if (!trx) throw new Error('transactionSql needs an EntityManager inside a transaction (em.transactional)');
  return trx.client.acquireConnection();
}
