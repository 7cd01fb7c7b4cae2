import { Client, type Pool } from 'pg';
import { createPool } from './orm';
import { StatementNames } from './prepared-statements';
import { withTransaction } from './sql';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ramp_platform_test';
const schema = `prepared_test_${Date.now().toString(36)}`;

describe('database - prepared statements (createPool)', () => {
  let admin: Client;
  const pools: Pool[] = [];
  /** A pool of one connection, so that what it prepared is visible to the next query on it. */
  const onePool = (prepare = true) => {
    const pool = createPool(DATABASE_URL, 1, 'prepared-test', prepare);
    pools.push(pool);
    return pool;
  };
  const prepared = async (pool: Pool) =>
    (await pool.query<{ statement: string }>('select statement from pg_prepared_statements')).rows.map((row) => row.statement);

  beforeAll(async () => {
    admin = new Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.query(`create table ${schema}.notes (id int primary key, body text not null)`);
    await admin.query(`insert into ${schema}.notes values (1, 'one'), (2, 'two')`);
  });

  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  });

  it('prepares each statement with parameters once per connection, and runs the others as they are', async () => {
    const pool = onePool();
    const text = `select body from ${schema}.notes where id = $1`;
    expect((await pool.query(text, [1])).rows).toEqual([{ body: 'one' }]);
    expect((await pool.query(text, [2])).rows).toEqual([{ body: 'two' }]);
    await pool.query(`select count(*) from ${schema}.notes`);
    const statements = await prepared(pool);
    expect(statements.filter((statement) => statement === text)).toHaveLength(1);
    expect(statements.some((statement) => statement.startsWith('select count(*)'))).toBe(false);
    // In a transaction too (the connection withTransaction checks out).
    await withTransaction(pool, async (tx) => {
      expect((await tx.query(text, [2])).rows).toEqual([{ body: 'two' }]);
    });
    expect((await prepared(pool)).filter((statement) => statement === text)).toHaveLength(1);
  });

  it('prepares nothing with DB_PREPARE_STATEMENTS false', async () => {
    const pool = onePool(false);
    expect((await pool.query(`select body from ${schema}.notes where id = $1 and body <> $2`, [1, 'x'])).rows).toEqual([{ body: 'one' }]);
    expect(await prepared(pool)).toEqual([]);
  });

  it('runs a statement whose prepared plan a migration changed again unprepared: at once alone, on the retry in a transaction', async () => {
    const pool = onePool();
    await admin.query(`create table ${schema}.changing (id int primary key)`);
    await admin.query(`insert into ${schema}.changing values (1)`);
    const alone = `select * from ${schema}.changing where id = $1`;
    const inTransaction = `select * from ${schema}.changing where id >= $1`;
    await pool.query(alone, [1]);
    await pool.query(inTransaction, [1]);
    // A migration adds a column: PostgreSQL refuses both prepared plans (their row type changed).
    await admin.query(`alter table ${schema}.changing add column note text not null default 'added'`);

    expect((await pool.query(alone, [1])).rows).toEqual([{ id: 1, note: 'added' }]);

    // Inside a transaction block the refusal aborts the transaction: it fails once, and its retry runs unprepared.
    await expect(withTransaction(pool, (tx) => tx.query(inTransaction, [1]))).rejects.toMatchObject({ code: '0A000' });
    expect((await withTransaction(pool, (tx) => tx.query(inTransaction, [1]))).rows).toEqual([{ id: 1, note: 'added' }]);
    // Neither is prepared again.
    await admin.query(`alter table ${schema}.changing add column other int not null default 7`);
    expect((await pool.query(alone, [1])).rows).toEqual([{ id: 1, note: 'added', other: 7 }]);
    expect((await withTransaction(pool, (tx) => tx.query(inTransaction, [1]))).rows).toEqual([{ id: 1, note: 'added', other: 7 }]);
  });

  it('runs a statement again unprepared when a migration changed the type of a column it compares', async () => {
    const pool = onePool();
    await admin.query(`create table ${schema}.coded (id int primary key, code int not null)`);
    await admin.query(`insert into ${schema}.coded values (1, 7)`);
    const text = `select id from ${schema}.coded where code = $1`;
    expect((await pool.query(text, [7])).rows).toEqual([{ id: 1 }]);
    // Its parameter was inferred an integer at the first parse; the column becomes text.
    await admin.query(`alter table ${schema}.coded alter column code type text using code::text`);
    expect((await pool.query(text, ['7'])).rows).toEqual([{ id: 1 }]);
  });

  it('keeps a connection usable after a value pg could not send (pg closed the statement on the server)', async () => {
    const pool = onePool();
    const text = `select body from ${schema}.notes where id = $1::int and $2::jsonb is not null`;
    await withTransaction(pool, (tx) => tx.query(text, [1, '{}']));
    // A bigint inside an object cannot be made JSON: pg fails before sending, and closes the prepared statement.
    await expect(withTransaction(pool, (tx) => tx.query(text, [1, { amount: 1n }]))).rejects.toThrow(/BigInt/);
    // The same connection (the pool has one), in a transaction and alone: it prepares the statement again.
    expect((await withTransaction(pool, (tx) => tx.query(text, [2, '{}']))).rows).toEqual([{ body: 'two' }]);
    expect((await pool.query(text, [1, '{}'])).rows).toEqual([{ body: 'one' }]);
  });
});

describe('database - StatementNames', () => {
  it('names a text by its digest, the same each time, and at most `max` texts', () => {
    const names = new StatementNames(2);
    const first = names.of('select $1');
    expect(first).toMatch(/^s_[\w-]{27}$/);
    expect(names.of('select $1')).toBe(first);
    expect(names.of('select $1, $2')).not.toBe(first);
    expect(names.of('select $1, $2, $3')).toBeUndefined();
    expect(names.of('select $1')).toBe(first);
  });

  it('never names a refused text again', () => {
    const names = new StatementNames();
    names.of('select * from t where id = $1');
    names.refuse('select * from t where id = $1');
    expect(names.of('select * from t where id = $1')).toBeUndefined();
    expect(names.size).toBe(0);
  });
});
