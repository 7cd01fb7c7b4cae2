import { randomUUID } from 'crypto';
import { applyMigrations, openDatabase, withTransaction, type ServiceDatabase } from '@ramp/database';
import { externalAccount, move, walletAccount } from '@ramp/bookkeeping';
import { LEDGER_DATABASE } from '../ledger.module';
import { InsufficientFunds, Journal } from './journal';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ramp_platform_test';

describe('ledger journal - entries posted once, balances moved in one fixed order, never below zero', () => {
  const journal = new Journal();
  let database: ServiceDatabase;
  const asset = `test-base:USDC-${randomUUID().slice(0, 8)}`;
  const balance = async (account: string) =>
    (await database.pool.query<{ amount: string }>(`select amount::text from ledger.balances where account = $1 and asset = $2`, [account, asset])).rows[0]
      ?.amount;

  beforeAll(async () => {
    database = await openDatabase({ ...LEDGER_DATABASE, url: DATABASE_URL, poolMax: 6, applicationName: 'journal-int-spec' });
    await applyMigrations(database, LEDGER_DATABASE.schema);
  });

  afterAll(async () => {
    await database.close();
  });

  it('posts an entry once: its balances move, and the same id again writes nothing', async () => {
    const [source, wallet] = [externalAccount(`src-${randomUUID()}`), walletAccount(`wal_${randomUUID()}`)];
    const entry = `credit:${randomUUID()}`;
    expect(await withTransaction(database.pool, (tx) => journal.post(tx, entry, 'credit', move(source, wallet, asset, '10.5')))).toBe(true);
    expect(await withTransaction(database.pool, (tx) => journal.post(tx, entry, 'credit', move(source, wallet, asset, '10.5')))).toBe(false);
    expect(await balance(wallet)).toBe('10.5');
    expect(await balance(source)).toBe('-10.5');
    expect((await journal.check(database.pool)).driftedBalances).toEqual([]);
  });

  it('refuses an entry that takes a wallet below zero, a new balance as an old one, and writes nothing of it', async () => {
    const [wallet, other, sink] = [walletAccount(`wal_${randomUUID()}`), walletAccount(`wal_${randomUUID()}`), externalAccount(`sink-${randomUUID()}`)];
    // No balance row yet: 0 - 1 is below zero.
    const unfunded = withTransaction(database.pool, (tx) => journal.post(tx, `debit:${randomUUID()}`, 'debit', move(wallet, sink, asset, '1')));
    await expect(unfunded).rejects.toBeInstanceOf(InsufficientFunds);
    expect(await balance(wallet)).toBeUndefined();
    expect(await balance(sink)).toBeUndefined();
    // A row with 5: 5 - 6 is below zero too, and 5 - 5 is not.
    await withTransaction(database.pool, (tx) => journal.post(tx, `credit:${randomUUID()}`, 'credit', move(sink, other, asset, '5')));
    const over = withTransaction(database.pool, (tx) => journal.post(tx, `debit:${randomUUID()}`, 'debit', move(other, sink, asset, '6')));
    await expect(over).rejects.toBeInstanceOf(InsufficientFunds);
    expect(await balance(other)).toBe('5');
    await withTransaction(database.pool, (tx) => journal.post(tx, `debit:${randomUUID()}`, 'debit', move(other, sink, asset, '5')));
    expect(await balance(other)).toBe('0');
  });

  it('leaves the transaction aborted when it refuses: a caller that catches the refusal cannot commit the entry without its balances', async () => {
    const [wallet, sink] = [walletAccount(`wal_${randomUUID()}`), externalAccount(`sink-${randomUUID()}`)];
    const entry = `debit:${randomUUID()}`;
    const client = await database.pool.connect();
    try {
      await client.query('begin');
      await expect(journal.post(client, entry, 'debit', move(wallet, sink, asset, '1'))).rejects.toBeInstanceOf(InsufficientFunds);
      // What a careless caller would do: go on and commit. PostgreSQL has aborted the transaction; the commit rolls back.
      await expect(client.query('select 1')).rejects.toThrow(/current transaction is aborted/);
      await client.query('commit');
    } finally {
      client.release();
    }
    expect((await database.pool.query(`select 1 from ledger.entries where id = $1`, [entry])).rowCount).toBe(0);
    expect((await database.pool.query(`select 1 from ledger.postings where entry_id = $1`, [entry])).rowCount).toBe(0);
    expect(await balance(wallet)).toBeUndefined();
  });

  it('does not deadlock with a caller that holds a balance row already, when both entries open the same new balance', async () => {
    // Accounts sorted as netChanges sorts them: `external:a…` (held, existing) before `wallet:z…` (new).
    const held = externalAccount(`a-${randomUUID()}`);
    const fresh = walletAccount(`z-${randomUUID()}`);
    await withTransaction(database.pool, (tx) => journal.post(tx, `seed:${randomUUID()}`, 'credit', move(externalAccount('seed'), held, asset, '100')));
    const first = await database.pool.connect();
    try {
      await first.query('begin');
      // As DepositBooks does before a reversal: the row locked, then an entry posted.
      await first.query(`select amount from ledger.balances where account = $1 and asset = $2 for update`, [held, asset]);
      // A second entry over the same two balances, the new one included, waits on the locked row before it opens the new one.
      const second = withTransaction(database.pool, (tx) => journal.post(tx, `second:${randomUUID()}`, 'move', move(held, fresh, asset, '1')));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await journal.post(first, `first:${randomUUID()}`, 'move', move(held, fresh, asset, '2'));
      await first.query('commit');
      await expect(second).resolves.toBe(true);
    } finally {
      first.release();
    }
    expect(await balance(held)).toBe('97');
    expect(await balance(fresh)).toBe('3');
  });
});
