import { applyMigrations, ensureDatabase, openDatabase, type ServiceDatabase } from '@ramp/database';
import { TEST_DATABASE_URL } from '@ramp/testing';
import { CHAIN_DATABASE } from '../chain.module';
import { ownArrival, walletArrival } from './own-arrival';

const HOT = '0x00000000000000000000000000000000000000Aa';
const ACCOUNT = '0x00000000000000000000000000000000000000bb';
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

describe('ownArrival and walletArrival - which arrivals are the platform’s own sends, found by any attempt’s hash', () => {
  let database: ServiceDatabase;
  // A chain of this run alone: the questions are asked by chain.
  const chain = `test-own-${Date.now().toString(36)}`;
  const sql = (text: string, params: unknown[]) => database.pool.query(text, params);
  const own = async (txHash: string) =>
    (await sql(`select ${ownArrival('d', '$2', '$3')} as own from (select $4::text as tx_hash) d`, [chain, HOT, HOT.toLowerCase(), txHash])).rows[0]
      .own as boolean;
  const intoWallet = async (txHash: string, to = ACCOUNT) =>
    (await sql(`select ${walletArrival('d')} as own from (select $2::text as tx_hash, $3::text as to_address) d`, [chain, txHash, to])).rows[0].own as boolean;
  const send = (key: string, kind: string, attempts: string[]) =>
    sql(
      `insert into chain.chain_sends (chain, sender, idempotency_key, to_address, data, value, status, kind, attempts, tx_hash)
       values ($1, $2, $3, '0xtoken', '0x', 0, 'pending', $4, $5::jsonb, $6)`,
      [chain, HOT, key, kind, JSON.stringify(attempts), attempts.at(-1)],
    );

  beforeAll(async () => {
    await ensureDatabase(TEST_DATABASE_URL);
    database = await openDatabase({ ...CHAIN_DATABASE, url: TEST_DATABASE_URL, poolMax: 2 });
    await applyMigrations(database, CHAIN_DATABASE.schema);
    // A sweep broadcast twice (a fee bump), a swap paid to the hot wallet, a swap and a transfer into a wallet's account,
    // and a transfer out (booked as leaving: its arrival back would be a deposit).
    await send('sweep:1', 'sweep', [hash(1), hash(2)]);
    await send('swap:hot', 'swap', [hash(3)]);
    await sql(
      `insert into chain.swaps (chain, send_key, from_token, to_token, amount_in, minimum_out, to_address, account) values ($1, 'swap:hot', 'a', 'b', 1, 0, $2, 'x')`,
      [chain, HOT.toLowerCase()],
    );
    await send('swap:wallet', 'swap', [hash(4)]);
    await sql(
      `insert into chain.swaps (chain, send_key, from_token, to_token, amount_in, minimum_out, to_address, account, to_wallet) values ($1, 'swap:wallet', 'a', 'b', 1, 0, $2, 'x', 'wal_1')`,
      [chain, ACCOUNT],
    );
    await send('transfer:wallet', 'transfer', [hash(5)]);
    await sql(
      `insert into chain.transfers (chain, send_key, token_symbol, amount, to_address, account, to_wallet) values ($1, 'transfer:wallet', 'USDC', 1, $2, 'x', 'wal_1')`,
      [chain, ACCOUNT],
    );
    await send('transfer:out', 'transfer', [hash(6)]);
    await sql(
      `insert into chain.transfers (chain, send_key, token_symbol, amount, to_address, account) values ($1, 'transfer:out', 'USDC', 1, '0xelsewhere', 'x')`,
      [chain],
    );
  });

  afterAll(async () => {
    for (const table of ['swaps', 'transfers', 'chain_sends']) await sql(`delete from chain.${table} where chain = $1`, [chain]);
    await database.close();
  });

  it('finds a sweep by either of its attempts, and a swap paid to the hot wallet', async () => {
    expect(await own(hash(1))).toBe(true);
    expect(await own(hash(2))).toBe(true);
    expect(await own(hash(3))).toBe(true);
  });

  it('does not take for its own a swap into a wallet, a transfer out, or a hash it never sent', async () => {
    expect(await own(hash(4))).toBe(false);
    expect(await own(hash(6))).toBe(false);
    expect(await own(hash(99))).toBe(false);
  });

  it('finds a transfer or a swap into a wallet’s account, to that account only', async () => {
    expect(await intoWallet(hash(4))).toBe(true);
    expect(await intoWallet(hash(5))).toBe(true);
    expect(await intoWallet(hash(5), '0x00000000000000000000000000000000000000cc')).toBe(false);
    expect(await intoWallet(hash(6))).toBe(false);
  });

  it('is answered from the attempts index, not by reading every send the chain ever made', async () => {
    // A chain with a history: 20,000 transfers of the hot wallet into wallets' accounts, each with its attempt.
    await sql(
      `insert into chain.chain_sends (chain, sender, idempotency_key, to_address, data, value, status, kind, attempts, tx_hash)
       select $1, $2, 'history:' || i, '0xtoken', '0x', 0, 'confirmed', 'transfer', jsonb_build_array('0x' || md5(i::text)), '0x' || md5(i::text)
         from generate_series(1, 20000) i`,
      [chain, HOT],
    );
    await sql(
      `insert into chain.transfers (chain, send_key, token_symbol, amount, to_address, account, to_wallet)
       select $1, 'history:' || i, 'USDC', 1, '0x' || substr(md5('to' || i), 1, 40), 'x', 'wal_h' || i from generate_series(1, 20000) i`,
      [chain],
    );
    await sql('analyze chain.chain_sends', []);
    await sql('analyze chain.transfers', []);
    const plan = async (text: string, params: unknown[]) => (await sql(`explain ${text}`, params)).rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(await plan(`select ${ownArrival('d', '$2', '$3')} as own from (select $4::text as tx_hash) d`, [chain, HOT, HOT.toLowerCase(), hash(1)])).toContain(
      'Bitmap Index Scan on chain_sends_attempts',
    );
    expect(await plan(`select ${walletArrival('d')} as own from (select $2::text as tx_hash, $3::text as to_address) d`, [chain, hash(5), ACCOUNT])).toContain(
      'Bitmap Index Scan on chain_sends_attempts',
    );
    expect(await own(hash(1))).toBe(true);
    expect(await own(hash(99))).toBe(false);
  });
});
