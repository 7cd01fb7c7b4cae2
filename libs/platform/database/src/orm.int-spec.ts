import { EntitySchema } from '@mikro-orm/core';
import { Migration } from '@mikro-orm/migrations';
import { Client } from 'pg';
import { applyMigrations, ensureDatabase, openDatabase, type ServiceDatabase } from './orm';
import { transactionSql } from './pool-dialect';
import { withTransaction, type Sql } from './sql';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ramp_platform_test';
const schema = `orm_test_${Date.now().toString(36)}`;
const application = `orm-test-${Date.now().toString(36)}`;

interface Note {
  id: string;
  body: string;
  createdAt: Date;
}

const NoteSchema = new EntitySchema<Note>({
  name: 'Note',
  tableName: 'notes',
  properties: {
    id: { type: 'string', primary: true },
    body: { type: 'string' },
    createdAt: { type: 'Date', fieldName: 'created_at' },
  },
});

class CreateNotes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table ${schema}.notes (id text primary key, body text not null, created_at timestamptz not null)`);
  }
}

describe('database - MikroORM and plain SQL on one pool', () => {
  const options = { schema, url: DATABASE_URL, entities: [NoteSchema], migrations: [CreateNotes], poolMax: 3, applicationName: application };
  let database: ServiceDatabase;
  let admin: Client;

  const connections = async (): Promise<number> =>
    (await admin.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where application_name = $1`, [application])).rows[0]!.n;
  /** What a PostgreSQL restart does to the pool: every one of its connections is closed under it. */
  const dropConnections = async (): Promise<void> => {
    await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1`, [application]);
  };
  const save = async (value: Note): Promise<void> => {
    const em = database.orm.em.fork();
    await em.persistAndFlush(em.create(NoteSchema, value));
  };
  const note = (id: string): Note => ({ id, body: `note ${id}`, createdAt: new Date('2026-01-02T03:04:05.678Z') });

  beforeAll(async () => {
    await ensureDatabase(DATABASE_URL);
    admin = new Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    database = await openDatabase(options);
  });

  afterAll(async () => {
    await database.close();
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  });

  it('applies the migrations once when replicas start together', async () => {
    const replica = await openDatabase(options);
    try {
      const applied = await Promise.all([applyMigrations(database, schema), applyMigrations(replica, schema)]);
      expect(applied.flat()).toEqual(['CreateNotes']);
      expect(await applyMigrations(database, schema)).toEqual([]);
    } finally {
      await replica.close();
    }
  });

  it('serves entities and plain SQL from the same connections, never more than the pool holds', async () => {
    await Promise.all(Array.from({ length: 12 }, (_, i) => save(note(`shared-${i}`))));
    const { rows } = await database.pool.query<{ n: number }>(`select count(*)::int as n from ${schema}.notes where id like $1`, ['shared-%']);
    expect(rows[0]!.n).toBe(12);
    const found = await database.orm.em.fork().findOneOrFail(NoteSchema, { id: 'shared-3' });
    expect(found.createdAt).toEqual(new Date('2026-01-02T03:04:05.678Z'));
    expect(await connections()).toBeLessThanOrEqual(options.poolMax);
    expect(database.pool.totalCount).toBe(await connections());
  });

  it('runs plain SQL in an entity transaction: both commit or neither', async () => {
    const write = (id: string, fail: boolean) =>
      database.orm.em.fork().transactional(async (tx) => {
        const sql = await transactionSql(tx);
        await sql.query(`insert into ${schema}.notes (id, body, created_at) values ($1, $2, now())`, [`${id}-sql`, 'plain']);
        tx.persist(tx.create(NoteSchema, note(`${id}-entity`)));
        if (fail) throw new Error('refused');
      });
    await write('kept', false);
    await expect(write('undone', true)).rejects.toThrow('refused');
    const { rows } = await database.pool.query<{ id: string }>(`select id from ${schema}.notes where id like 'kept-%' or id like 'undone-%' order by id`);
    expect(rows.map((row) => row.id)).toEqual(['kept-entity', 'kept-sql']);
  });

  it('works again after PostgreSQL closes every connection of the pool', async () => {
    await database.orm.em.fork().findOne(NoteSchema, { id: 'shared-1' });
    await dropConnections();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await database.orm.em.fork().findOneOrFail(NoteSchema, { id: 'shared-1' })).body).toBe('note shared-1');
    expect((await database.pool.query(`select 1 as one`)).rows).toEqual([{ one: 1 }]);
  });

  it('fails an entity transaction whose connection is dropped, and the next work gets a sound connection', async () => {
    const transaction = database.orm.em.fork().transactional(async (tx) => {
      await tx.findOne(NoteSchema, { id: 'shared-2' });
      await dropConnections();
      await new Promise((resolve) => setTimeout(resolve, 100));
      tx.persist(tx.create(NoteSchema, note('after-drop')));
    });
    await expect(transaction).rejects.toThrow();
    for (let i = 0; i < options.poolMax + 1; i++) await save(note(`recovered-${i}`));
    const { rows } = await database.pool.query<{ n: number }>(
      `select count(*)::int as n from ${schema}.notes where id like 'recovered-%' or id = 'after-drop'`,
    );
    expect(rows[0]!.n).toBe(options.poolMax + 1);
  });

  it('commits a transaction without waiting for the disk when asked, and only that transaction', async () => {
    const setting = (tx: Sql) => tx.query<{ synchronous_commit: string }>('show synchronous_commit');
    const unsynced = await withTransaction(database.pool, async (tx) => (await setting(tx)).rows[0]!.synchronous_commit, { synchronousCommit: false });
    expect(unsynced).toBe('off');
    const after = await Promise.all(
      Array.from({ length: options.poolMax }, () => withTransaction(database.pool, async (tx) => (await setting(tx)).rows[0]!.synchronous_commit)),
    );
    expect(after).toEqual(Array.from({ length: options.poolMax }, () => 'on'));
  });

  it('closes the pool once, however many times it is asked to', async () => {
    const other = await openDatabase(options);
    await other.orm.em.fork().findOne(NoteSchema, { id: 'shared-1' });
    await Promise.all([other.close(), other.close()]);
    await other.close();
    expect(other.pool.ended).toBe(true);
    await expect(other.pool.query('select 1')).rejects.toThrow();
  });
});
