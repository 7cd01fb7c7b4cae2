import { applyMigrations, ensureDatabase, LeaderSession, openDatabase, type ServiceDatabase } from '@ramp/database';
import { TEST_DATABASE_URL } from '@ramp/testing';
import { CHAIN_DATABASE } from '../chain.module';
import { lookAtPass, type PassLook } from './pass-look';

const NOTHING: PassLook = { sweeps: false, netting: false, operations: false, bridges: false };
const EVERY_PART = { netMs: 1000, operations: true, bridges: true };

describe('lookAtPass - what a chain pass finds to do, in one read on the leader connection', () => {
  let database: ServiceDatabase;
  let session: LeaderSession;
  // A chain of this run alone: the questions are asked by chain, so other suites' rows are not seen.
  const chain = `test-look-${Date.now().toString(36)}`;
  const other = `${chain}-other`;
  const look = (parts = EVERY_PART) => lookAtPass((sql, params) => session.query(sql, params), chain, parts);
  const sql = (text: string, params: unknown[]) => database.pool.query(text, params);

  beforeAll(async () => {
    await ensureDatabase(TEST_DATABASE_URL);
    database = await openDatabase({ ...CHAIN_DATABASE, url: TEST_DATABASE_URL, poolMax: 2 });
    await applyMigrations(database, CHAIN_DATABASE.schema);
    session = await LeaderSession.open({ connection: { connectionString: TEST_DATABASE_URL }, key: `chain:${chain}`, applicationName: 'pass-look-test' });
    expect(await session.tryLead()).toBe(true);
  });

  afterAll(async () => {
    // The rows are gone after each test (afterEach).
    await session.end();
    await database.close();
  });

  afterEach(async () => {
    for (const table of ['sweeps_due', 'transfers', 'account_operations']) await sql(`delete from chain.${table} where chain like $1`, [`${chain}%`]);
    await sql(`delete from chain.bridges where from_chain like $1 or to_chain like $1`, [`${chain}%`]);
  });

  it('finds nothing on a quiet chain', async () => {
    expect(await look()).toEqual(NOTHING);
  });

  it('finds a sweep once it is due, not before, and not another chain’s', async () => {
    await sql(`insert into chain.sweeps_due (chain, address, owner, due_at) values ($1, '0xa', 'wallet:w1', now() + interval '1 hour')`, [chain]);
    await sql(`insert into chain.sweeps_due (chain, address, owner, due_at) values ($1, '0xa', 'wallet:w1', now() - interval '1 second')`, [other]);
    expect((await look()).sweeps).toBe(false);
    await sql(`update chain.sweeps_due set due_at = now() - interval '1 second' where chain = $1`, [chain]);
    expect(await look()).toEqual({ ...NOTHING, sweeps: true });
  });

  it('finds a netted settlement once it waited the interval, and none when the chain does not net', async () => {
    const settlement = (key: string, age: string, netSendKey: string | null = null) =>
      sql(
        `insert into chain.transfers (chain, send_key, token_symbol, amount, to_address, account, created_at, netted, net_send_key)
         values ($1, $2, 'CNGN', 100, '0xprovider', 'provider:flutterwave', now() - $3::interval, true, $4)`,
        [chain, key, age, netSendKey],
      );
    await settlement('transfer:a:settle', '0 seconds');
    // Netted already: in a send of its own.
    await settlement('transfer:b:settle', '1 minute', 'net:b');
    expect((await look()).netting).toBe(false);
    await settlement('transfer:c:settle', '2 seconds');
    expect(await look()).toEqual({ ...NOTHING, netting: true });
    expect((await look({ ...EVERY_PART, netMs: 0 })).netting).toBe(false);
  });

  it('finds an account operation queued or submitted, not one that ended, and none on a chain without accounts', async () => {
    const operation = (key: string, status: string) =>
      sql(
        `insert into chain.account_operations (chain, idempotency_key, kind, wallet_id, sender, terms, calls, nonce, status)
         values ($1, $2, 'transfer', 'wal_1', '0xaccount', '{}', '[]', 0, $3)`,
        [chain, key, status],
      );
    await operation('op-confirmed', 'confirmed');
    await operation('op-failed', 'failed');
    expect((await look()).operations).toBe(false);
    await operation('op-submitted', 'submitted');
    expect(await look()).toEqual({ ...NOTHING, operations: true });
    expect((await look({ ...EVERY_PART, operations: false })).operations).toBe(false);
  });

  it('finds a bridge the relayer moves along, bound for the chain or made on it, and none without a relayer', async () => {
    const bridge = (key: string, from: string, to: string, status: string) =>
      sql(
        `insert into chain.bridges (from_chain, key, to_chain, organization_id, token, amount_in, amount_out, recipient, account, fill_deadline, status)
         values ($1, $2, $3, 'org_1', 'USDC', 10, 9.9, '0xrecipient', 'wallet:w1', 0, $4)`,
        [from, key, to, status],
      );
    // Ended, or not deposited yet: nothing for the relayer.
    await bridge('b-settled', chain, other, 'settled');
    await bridge('b-depositing', chain, other, 'depositing');
    await bridge('b-filling', other, chain, 'filling');
    expect((await look()).bridges).toBe(false);
    // A deposit bound for the chain: to fill.
    await bridge('b-inbound', other, chain, 'deposited');
    expect(await look()).toEqual({ ...NOTHING, bridges: true });
    await sql(`delete from chain.bridges where key = 'b-inbound'`, []);
    // A deposit made on the chain and filled on the other: to repay (or, unfilled past its deadline, to refund).
    await bridge('b-outbound', chain, other, 'filled');
    expect((await look()).bridges).toBe(true);
    expect((await look({ ...EVERY_PART, bridges: false })).bridges).toBe(false);
  });

  it('throws once the leader connection is gone, so that the pass does nothing', async () => {
    const lost = await LeaderSession.open({
      connection: { connectionString: TEST_DATABASE_URL },
      key: `chain:${chain}:lost`,
      applicationName: 'pass-look-test',
    });
    await lost.end();
    await expect(lookAtPass((text, params) => lost.query(text, params), chain, EVERY_PART)).rejects.toThrow();
  });
});
