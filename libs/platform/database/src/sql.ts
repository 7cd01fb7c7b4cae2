import type { Pool, PoolClient } from 'pg';

/** What the event store needs of a connection: a pool, a pooled client or a client inside a transaction. */
export interface Sql {
  query<R extends object = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}

export interface TransactionOptions {
  /**
   * false: the commit does not wait for the WAL to reach the disk (`synchronous_commit = off` for this transaction
   * only). For writes whose loss in a PostgreSQL crash only means doing them again, never losing anything.
   */
  synchronousCommit?: boolean;
}

/**
 * Runs `work` in one transaction on one pooled connection; commits when it resolves, rolls back when it throws.
 *
 * While a client is checked out, the pool does not listen for its errors, and a connection PostgreSQL drops (a
 * restart, a crash) emits one: unheard, it would kill the process. It is heard here; the work's queries fail on their
 * own, and the broken client is destroyed rather than returned to the pool.
 */
export async function withTransaction<T>(pool: Pool, work: (tx: PoolClient) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on('error', onError);
  try {
    // One round trip either way: without parameters, both statements go in one simple query.
    await client.query(options.synchronousCommit === false ? 'begin; set local synchronous_commit = off' : 'begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.removeListener('error', onError);
    client.release(lost);
  }
}

/** A schema name safe to put in SQL text (it cannot be a bind parameter). */
export function schemaName(schema: string): string {
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  return schema;
}
