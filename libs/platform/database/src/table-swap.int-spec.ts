import { Client, type Pool } from 'pg';
import { createPool } from './orm';
import { createShadow, shadowOf, swapInShadow, SWAP_LOCK_TIMEOUT_MS } from './table-swap';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ramp_platform_test';
const schema = `swap_test_${Date.now().toString(36)}`;
const reader = `swap_reader_${Date.now().toString(36)}`;

describe('database - a rebuilt table swapped in by name (createShadow, swapInShadow)', () => {
  let admin: Client;
  let pool: Pool;
  const table = shadowOf(`${schema}.notes`);

  const shape = async (name: string) => ({
    indexes: (
      await admin.query<{ name: string; definition: string }>(
        `select indexname as name, replace(indexdef, $2, '') as definition from pg_indexes where schemaname = $1 and tablename = $2 order by indexname`,
        [schema, name],
      )
    ).rows,
    constraints: (
      await admin.query(`select conname, pg_get_constraintdef(oid) as definition from pg_constraint where conrelid = $1::regclass order by conname`, [
        `${schema}.${name}`,
      ])
    ).rows,
    grants: (
      await admin.query(`select grantee, privilege_type from information_schema.role_table_grants where table_schema = $1 and table_name = $2 order by 1, 2`, [
        schema,
        name,
      ])
    ).rows,
    columns: (
      await admin.query(
        `select column_name, data_type, is_nullable, column_default from information_schema.columns where table_schema = $1 and table_name = $2 order by ordinal_position`,
        [schema, name],
      )
    ).rows,
  });

  /** Until `count` sessions wait for a lock on the live table (the swap first, then a writer queued behind it). */
  const waitingForLocks = async (count: number) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await admin.query<{ n: number }>(`select count(*)::int as n from pg_locks where relation = $1::regclass and not granted`, [
        `${schema}.notes`,
      ]);
      if (rows[0]!.n >= count) return;
      if (Date.now() > deadline) throw new Error(`${rows[0]!.n} sessions wait for the table, not ${count}`);
      await new Promise((wait) => setTimeout(wait, 20));
    }
  };

  beforeAll(async () => {
    admin = new Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.query(`do $$ begin if not exists (select from pg_roles where rolname = '${reader}') then create role ${reader} nologin; end if; end $$`);
    await admin.query(`
      create table ${schema}.notes (
        id text primary key,
        owner text not null,
        body text not null check (length(body) > 0),
        version integer not null default 1,
        parent text
      )`);
    await admin.query(`create index notes_owner_newest on ${schema}.notes (owner, version desc, id desc)`);
    await admin.query(`create index notes_parent on ${schema}.notes (parent) where parent is not null`);
    await admin.query(`create unique index notes_body_unique on ${schema}.notes (owner, body)`);
    await admin.query(`grant select, insert on ${schema}.notes to ${reader}`);
    // The schema's default privileges give new tables more than the live table has: the swapped-in one must not keep it.
    await admin.query(`alter default privileges in schema ${schema} grant select, insert, update, delete on tables to ${reader}`);
    await admin.query(`insert into ${schema}.notes (id, owner, body) values ('a', 'o1', 'old a'), ('b', 'o1', 'old b')`);
    pool = createPool(DATABASE_URL, 2, 'swap-test');
  });

  afterAll(async () => {
    await pool.end();
    await admin.query(`drop schema ${schema} cascade`);
    await admin.query(`drop role if exists ${reader}`);
    await admin.end();
  });

  it('swaps in the rebuilt rows under the live names, with the indexes, key, grants and defaults of the live table', async () => {
    const before = await shape('notes');
    // A statement prepared on a live connection before the swap (the services prepare theirs: DB_PREPARE_STATEMENTS).
    const live = createPool(DATABASE_URL, 1, 'swap-test-live');
    const read = `select id, body, version from ${schema}.notes where owner = $1 order by id`;
    expect((await live.query(read, ['o1'])).rows.map((row) => row.body)).toEqual(['old a', 'old b']);

    await admin.query(`create table ${table.qualified} (id int)`); // left by a run that did not finish
    await createShadow(pool, table);
    expect((await shape(table.shadow)).indexes.map((index) => index.name)).toEqual([`${table.shadow}_pkey`]);
    await pool.query(`insert into ${table.qualified} (id, owner, body, version) values ('a', 'o1', 'new a', 3), ('c', 'o2', 'new c', 1)`);
    await pool.query(`insert into ${table.qualified} (id, owner, body) values ('d', 'o1', 'new d')`);

    // A writer that reaches the live table while the swap holds it waits, then writes into the new table.
    const blocker = new Client({ connectionString: DATABASE_URL });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query(`select 1 from ${schema}.notes limit 1`);
    const swapped = swapInShadow(pool, table);
    await waitingForLocks(1);
    const writer = live.query(`insert into ${schema}.notes (id, owner, body) values ($1, $2, $3)`, ['e', 'o1', 'during the swap']);
    await waitingForLocks(2);
    await blocker.query('commit');
    await blocker.end();
    await swapped;
    await writer;

    expect((await live.query(read, ['o1'])).rows).toEqual([
      { id: 'a', body: 'new a', version: 3 },
      { id: 'd', body: 'new d', version: 1 },
      { id: 'e', body: 'during the swap', version: 1 },
    ]);
    await live.end();
    expect(await shape('notes')).toEqual(before);
    const tables = await admin.query(`select tablename from pg_tables where schemaname = $1`, [schema]);
    expect(tables.rows).toEqual([{ tablename: 'notes' }]);
    // The unique index still refuses a duplicate, under its own name.
    await expect(admin.query(`insert into ${schema}.notes (id, owner, body) values ('f', 'o1', 'new a')`)).rejects.toThrow(/notes_body_unique/);
  });

  it('changes nothing of the live table when the swap cannot commit, and refuses a table whose constraints it would not keep', async () => {
    await createShadow(pool, table);
    await pool.query(`insert into ${table.qualified} (id, owner, body) values ('z', 'o9', 'never')`);
    // A view on the live table makes its drop fail: the transaction rolls back whole.
    await admin.query(`create view ${schema}.owners as select distinct owner from ${schema}.notes`);
    await expect(swapInShadow(pool, table)).rejects.toThrow(/depend/);
    expect((await admin.query(`select id from ${schema}.notes order by id`)).rows.map((row) => row.id)).toEqual(['a', 'c', 'd', 'e']);
    expect((await admin.query(`select count(*)::int as n from ${table.qualified}`)).rows[0].n).toBe(1);
    await admin.query(`drop view ${schema}.owners`);

    await admin.query(`create function ${schema}.stamp() returns trigger language plpgsql as $$ begin return new; end $$`);
    await admin.query(`create trigger notes_stamp before insert on ${schema}.notes for each row execute function ${schema}.stamp()`);
    await expect(createShadow(pool, table)).rejects.toThrow('has what the swap would not keep: trigger notes_stamp');
    await admin.query(`drop trigger notes_stamp on ${schema}.notes`);
    await admin.query(`alter table ${schema}.notes add constraint notes_one_body unique using index notes_body_unique`);
    await expect(createShadow(pool, table)).rejects.toThrow(/notes_one_body/);
    await admin.query(`alter table ${schema}.notes drop constraint notes_one_body`);
    expect(() => shadowOf('notes')).toThrow(/schema\.table/);
  });

  it('waits for a long reader of the live table a bounded time at once, letting the others go on, and swaps once it can', async () => {
    await createShadow(pool, table);
    await pool.query(`insert into ${table.qualified} (id, owner, body) values ('late', 'o1', 'after a long read')`);
    const reader = new Client({ connectionString: DATABASE_URL });
    await reader.connect();
    await reader.query('begin');
    await reader.query(`select count(*) from ${schema}.notes`);
    const started = Date.now();
    const swapped = swapInShadow(pool, table);
    // Past the first attempt's lock timeout, another reader is not held behind the swap.
    await new Promise((wait) => setTimeout(wait, SWAP_LOCK_TIMEOUT_MS + 500));
    expect((await admin.query(`select count(*)::int as n from ${schema}.notes`)).rows[0].n).toBe(4);
    await reader.query('commit');
    await reader.end();
    await swapped;
    expect(Date.now() - started).toBeGreaterThan(SWAP_LOCK_TIMEOUT_MS);
    expect((await admin.query(`select id from ${schema}.notes`)).rows).toEqual([{ id: 'late' }]);
  });
});
