import type { Pool } from 'pg';
import { schemaName, withTransaction } from './sql';

/**
 * A table rebuilt beside a live one and swapped in by name: `shadowOf('ledger.transactions')` is
 * `ledger.transactions_rebuild`, shaped like the live table (columns, defaults, checks, storage) with its primary key
 * alone, so that it is loaded without maintaining the other indexes; `swapInShadow` builds those indexes, gives it the
 * live table's owner, grants and statistics, then drops the live table and renames the shadow, its key and its indexes
 * to the live names in one short transaction. Readers and writers of the live table wait for that transaction only
 * (a rename, not a copy of every row), and find the new table by its name when it commits.
 */
export interface ShadowTable {
  schema: string;
  /** The live table's name within its schema. */
  live: string;
  /** The shadow's name within the same schema. */
  shadow: string;
  /** `schema.shadow`, for the statements that load it. */
  qualified: string;
}

function identifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`invalid identifier ${name}`);
  return name;
}

/** The shadow of `schema.table` (`schema.table_rebuild`), not created yet. */
export function shadowOf(qualified: string): ShadowTable {
  const [schema, live, ...rest] = qualified.split('.');
  if (!schema || !live || rest.length > 0) throw new Error(`expected schema.table, got ${qualified}`);
  const shadow = identifier(`${identifier(live)}_rebuild`);
  return { schema: schemaName(schema), live, shadow, qualified: `${schema}.${shadow}` };
}

/**
 * Creates the shadow afresh (a shadow left by an earlier run that did not finish is dropped), with the live table's
 * primary key. Refuses a live table with other constraints backed by an index (unique, exclusion): swapInShadow would
 * rebuild them as plain indexes.
 */
export async function createShadow(pool: Pool, table: ShadowTable): Promise<void> {
  const live = `${table.schema}.${table.live}`;
  const { rows: constraints } = await pool.query<{ name: string; definition: string; type: string }>(
    `select conname as name, pg_get_constraintdef(oid) as definition, contype as type
       from pg_constraint where conrelid = $1::regclass and contype in ('p', 'u', 'x')`,
    [live],
  );
  const others = constraints.filter((constraint) => constraint.type !== 'p');
  if (others.length > 0) throw new Error(`${live} has constraints the swap would not keep: ${others.map((c) => c.name).join(', ')}`);
  // What a shadow would not carry, or a drop would break: foreign keys either way, triggers, row security.
  const { rows: kept } = await pool.query<{ what: string }>(
    `select 'foreign key ' || conname as what from pg_constraint where contype = 'f' and (conrelid = $1::regclass or confrelid = $1::regclass)
     union all select 'trigger ' || tgname from pg_trigger where tgrelid = $1::regclass and not tgisinternal
     union all select 'row security' from pg_class where oid = $1::regclass and relrowsecurity`,
    [live],
  );
  if (kept.length > 0) throw new Error(`${live} has what the swap would not keep: ${kept.map((row) => row.what).join(', ')}`);
  const key = constraints.find((constraint) => constraint.type === 'p');
  if (!key) throw new Error(`${live} has no primary key`);
  await pool.query(`drop table if exists ${table.qualified}`);
  await pool.query(`create table ${table.qualified} (like ${live} including all excluding indexes)`);
  await pool.query(`alter table ${table.qualified} add constraint ${table.shadow}_pkey ${key.definition}`);
}

interface LiveIndex {
  name: string;
  definition: string;
}

/**
 * Builds the live table's indexes on the shadow, gives it the live table's owner and grants, analyzes it; then, in one
 * transaction holding the live table's access-exclusive lock, drops the live table and gives the shadow, its primary
 * key and its indexes the live names. Nothing of the live table changes unless all of it commits.
 */
export async function swapInShadow(pool: Pool, table: ShadowTable): Promise<void> {
  const live = `${table.schema}.${table.live}`;
  const { rows: indexes } = await pool.query<LiveIndex>(
    `select c.relname as name, pg_get_indexdef(i.indexrelid) as definition
       from pg_index i join pg_class c on c.oid = i.indexrelid
      where i.indrelid = $1::regclass and not i.indisprimary order by c.relname`,
    [live],
  );
  const built: { live: string; shadow: string }[] = [];
  for (const [n, index] of indexes.entries()) {
    // pg_get_indexdef: CREATE [UNIQUE] INDEX name ON [ONLY] schema.table USING method (...) [...]
    const parts = /^CREATE (UNIQUE )?INDEX \S+ ON (?:ONLY )?\S+ (USING .+)$/s.exec(index.definition);
    if (!parts) throw new Error(`cannot rebuild index ${index.name}: ${index.definition}`);
    const shadowIndex = identifier(`${table.shadow}_index_${n}`);
    await pool.query(`create ${parts[1] ?? ''}index ${shadowIndex} on ${table.qualified} ${parts[2]}`);
    built.push({ live: index.name, shadow: shadowIndex });
  }
  const { rows: owners } = await pool.query<{ live: string; shadow: string }>(
    `select pg_get_userbyid(l.relowner) as live, pg_get_userbyid(s.relowner) as shadow
       from pg_class l, pg_class s where l.oid = $1::regclass and s.oid = $2::regclass`,
    [live, table.qualified],
  );
  const owner = owners[0]!;
  if (owner.live !== owner.shadow) await pool.query(`alter table ${table.qualified} owner to "${owner.live.replace(/"/g, '""')}"`);
  const { rows: grants } = await pool.query<{ grantee: string; privilege: string }>(
    `select case when a.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(a.grantee)) end as grantee, a.privilege_type as privilege
       from pg_class c, aclexplode(c.relacl) a where c.oid = $1::regclass`,
    [live],
  );
  // Exactly the live table's grants: none the schema's default privileges gave the new table beyond them.
  const { rows: given } = await pool.query<{ grantee: string }>(
    `select distinct case when a.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(a.grantee)) end as grantee
       from pg_class c, aclexplode(c.relacl) a where c.oid = $1::regclass and a.grantee <> c.relowner`,
    [table.qualified],
  );
  for (const { grantee } of given) await pool.query(`revoke all on ${table.qualified} from ${grantee}`);
  for (const grant of grants) await pool.query(`grant ${grant.privilege} on ${table.qualified} to ${grant.grantee}`);
  await pool.query(`analyze ${table.qualified}`);
  const { rows: keys } = await pool.query<{ name: string }>(`select conname as name from pg_constraint where conrelid = $1::regclass and contype = 'p'`, [
    live,
  ]);
  const liveKey = keys[0]!.name;
  // The lock waits at most SWAP_LOCK_TIMEOUT_MS for the live table's readers (a long query, a session idle in a
  // transaction): every reader and writer that comes after would queue behind it meanwhile. Tried again a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      await withTransaction(pool, async (tx) => {
        await tx.query(`set local lock_timeout = ${SWAP_LOCK_TIMEOUT_MS}`);
        await tx.query(`lock table ${live} in access exclusive mode`);
        await tx.query(`drop table ${live}`);
        await tx.query(`alter table ${table.qualified} rename to ${table.live}`);
        await tx.query(`alter table ${live} rename constraint ${table.shadow}_pkey to "${liveKey.replace(/"/g, '""')}"`);
        for (const index of built) await tx.query(`alter index ${table.schema}.${index.shadow} rename to "${index.live.replace(/"/g, '""')}"`);
      });
      return;
    } catch (error) {
      // 55P03 lock_not_available: the lock was not had in time; nothing changed.
      if ((error as { code?: string }).code !== '55P03' || attempt >= SWAP_LOCK_ATTEMPTS) throw error;
      await new Promise((wait) => setTimeout(wait, SWAP_LOCK_TIMEOUT_MS));
    }
  }
}

/** How long the swap waits for the live table's lock before it lets its readers go on and tries again. */
export const SWAP_LOCK_TIMEOUT_MS = 2_000;
const SWAP_LOCK_ATTEMPTS = 10;
