import { Client, Pool } from 'pg';
import { depositWatcherMigration, LOCAL_TEST_CHAINS, sendQueueMigration } from '@ramp/evm';
import { AnvilNode, TEST_DATABASE_URL } from '@ramp/testing';
import { devStateProblems } from './dev-state';

/**
 * `npm start`'s check: a development database used with other chains than the ones running now (a chain started empty
 * under an old database) is named, problem by problem, before the chain service would halt on it; a database that agrees
 * with its chains, or has never run one, passes.
 */
describe('dev state - the development database against the local chains, before npm start runs the services', () => {
  const node = new AnvilNode({ chainId: 84532 });
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = '/ramp_dev_state_test';
  let pool: Pool;

  beforeAll(async () => {
    await node.start();
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query('drop database if exists ramp_dev_state_test with (force)');
    await admin.query('create database ramp_dev_state_test');
    await admin.end();
    pool = new Pool({ connectionString: url.toString(), max: 2 });
  }, 60_000);

  afterAll(async () => {
    await pool?.end();
    await node.stop();
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query('drop database if exists ramp_dev_state_test with (force)');
    await admin.end();
  });

  const base = () => [{ ...LOCAL_TEST_CHAINS.find((chain) => chain.chain === 'base')!, rpcUrl: node.rpcUrl, rpcUrls: [node.rpcUrl], localPort: node.port }];

  it('passes a database that never ran a chain, names a chain started empty under it and a nonce apart, and passes them once they agree', async () => {
    expect(await devStateProblems(pool, base())).toEqual([]);
    for (const statement of [...sendQueueMigration('chain'), ...depositWatcherMigration('chain')]) await pool.query(statement);
    expect(await devStateProblems(pool, base())).toEqual([]);

    // The database scanned a chain further than this (empty) one goes, and signed sends it never saw.
    await pool.query(`insert into chain.chain_checkpoints (chain, block_number) values ('test-base', 500)`);
    expect(await devStateProblems(pool, base())).toEqual([
      expect.stringMatching(/^base: the database has scanned it to block 500, but the chain has only \d+ blocks/),
    ]);
    await pool.query(`update chain.chain_checkpoints set block_number = 0 where chain = 'test-base'`);
    await pool.query(`insert into chain.chain_senders (chain, address, next_nonce) values ('test-base', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', 42)`);
    expect(await devStateProblems(pool, base())).toEqual([
      'base: 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 has 0 transactions on the chain, but the database signed 42',
    ]);

    await pool.query(`update chain.chain_senders set next_nonce = 0`);
    expect(await devStateProblems(pool, base())).toEqual([]);
  }, 60_000);
});
