import { createPublicClient, createWalletClient, http, parseEther, type Address, type PublicClient } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { liveChainData } from '@ramp/chains';
import { applyMigrations, ensureDatabase, openDatabase, type ServiceDatabase } from '@ramp/database';
import { HdCustody, readPoolObservations, resolveChains, standInLiveChain } from '@ramp/evm';
import { SecretBox } from '@ramp/keys';
import { dec } from '@ramp/money';
import { ANVIL_MNEMONIC, AnvilNode } from '@ramp/testing';
import { CHAIN_DATABASE } from '../chain.module';
import { ChainContext } from '../context/chain-context';
import { CHAIN_LOG } from '../events/log';
import { PoolAverages } from './pool-averages';
import { Pools } from './pools';

/**
 * A live chain's pools are judged by their own time-weighted averages: on an anvil node standing in for Base (chain id
 * 8453) as the live rehearsal does (standInLiveChain: Uniswap V2 and the tokens at the live configuration's addresses,
 * the pools seeded at the sandbox prices), the chain's leader reads the pools' accumulators into
 * `chain.pool_observations`, and a read of the pools (any replica's) carries the average once a reading is at least a
 * span old, and none once the readings are older than three spans, until the leader reads again.
 */
describe("pool averages - a live chain's pools judged by their own time-weighted average", () => {
  const node = new AnvilNode({ chainId: 8453 });
  const box = new SecretBox(process.env.CUSTODY_SEALING_KEY, false);
  const custody = HdCustody.sealed(box.seal(ANVIL_MNEMONIC), box);
  const live = liveChainData('base')!;
  const anyone = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 9 });
  const SPAN = 10;
  let database: ServiceDatabase;
  let client: PublicClient;
  let pair: Address;

  const later = async (seconds: number) => {
    await node.rpc('evm_increaseTime', [seconds]);
    await node.rpc('evm_mine', []);
  };
  const contextOf = () =>
    new ChainContext({
      environment: 'live',
      settings: resolveChains(
        'live',
        { base: { chainId: 8453, rpcUrl: node.rpcUrl, hotWalletPath: "m/44'/60'/1'/0/0", finality: 'depth', confirmations: 12 } },
        'LIVE_CHAINS',
      )[0]!,
      custody,
      pool: database.pool,
      log: CHAIN_LOG,
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      stuckAfterMs: 1000,
      maxFeePerGas: parseEther('0.000001'),
      onHotSendFinished: async () => undefined,
    });
  const readings = async () =>
    (
      await database.pool.query<{ token: string; pair: string; block_timestamp: string; cumulative: string }>(
        `select token, pair, block_timestamp::text, cumulative::text from chain.pool_observations where chain = 'live-base' order by block_timestamp`,
      )
    ).rows;

  beforeAll(async () => {
    await node.start();
    client = createPublicClient({ transport: http(node.rpcUrl) }) as PublicClient;
    await ensureDatabase(process.env.DATABASE_URL!);
    database = await openDatabase({ ...CHAIN_DATABASE, url: process.env.DATABASE_URL!, poolMax: 3 });
    await applyMigrations(database, CHAIN_DATABASE.schema);
    await database.pool.query(`delete from chain.pool_observations where chain = 'live-base'`);
    // Uniswap V2 and the tokens at the live addresses, every pool seeded at the sandbox prices, as the rehearsal has them.
    const stoodIn = await standInLiveChain(client, live, {
      operator: createWalletClient({ account: anyone, transport: http(node.rpcUrl) }),
      rpc: (method, params) => node.rpc(method, params),
    });
    pair = stoodIn.dex.pairs.CNGN!;
  }, 120_000);

  afterAll(async () => {
    await database?.close();
    await node.stop();
  });

  it("averages a pool from the leader's readings once one is a span old, on any replica, and not from readings older than three spans", async () => {
    const context = contextOf();
    const averages = new PoolAverages(context, SPAN);
    const pools = new Pools(context, 0, averages);
    const cngnOf = async (read: Pools) => (await read.read()).pools.find((pool) => pool.token === 'CNGN')!;

    // Never read: the pool is there, without an average (3,000,000,000 CNGN against 2,000,000 USDC).
    expect(await cngnOf(pools)).toEqual({ token: 'CNGN', tokenReserve: 3_000_000_000n * 10n ** 6n, hubReserve: 2_000_000n * 10n ** 6n });

    await averages.tick();
    const first = (await readings()).filter((row) => row.token === 'CNGN');
    expect(first).toHaveLength(1);
    const block = await client.getBlockNumber({ cacheTime: 0 });
    const reading = (await readPoolObservations(context.client, context.dex!, block)).find((candidate) => candidate.token === 'CNGN')!;
    expect(first[0]).toEqual({
      token: 'CNGN',
      pair: pair.toLowerCase(),
      block_timestamp: reading.timestamp.toString(),
      cumulative: reading.cumulative.toString(),
    });
    // Every pool with liquidity is read: the ETH pool too.
    expect((await readings()).map((row) => row.token).sort()).toEqual(['CNGN', 'ETH']);
    // Within the interval (a tenth of the span), the leader reads nothing more.
    await averages.tick();
    expect(await readings()).toHaveLength(2);

    // Less than a span after the reading: no average yet.
    await later(SPAN / 2);
    expect((await cngnOf(pools)).average).toBeUndefined();

    // A span after it, any replica (here one that never read) averages the steady pool to its price.
    await later(SPAN);
    const replica = new Pools(contextOf(), 0, new PoolAverages(contextOf(), SPAN));
    const replicaRead = await replica.read();
    // The read says how old its prices are: its block's own timestamp.
    expect(replicaRead.blockTimestamp).toBe(Number((await client.getBlock({ blockNumber: replicaRead.blockNumber })).timestamp));
    const averaged = replicaRead.pools.find((pool) => pool.token === 'CNGN')!.average!;
    expect(averaged.seconds).toBeGreaterThanOrEqual(SPAN);
    // 2,000,000 USDC per 3,000,000,000 CNGN (1,500 NGN to the dollar), to the accumulator's precision (UQ112x112).
    expect(averaged.hubPerToken.sub(dec(1).div(1500)).abs().lessThan('1e-30')).toBe(true);

    // Three spans after the last reading, it is too old to stand for the pool: no average, until the leader reads again
    // (and deletes what is older than three spans).
    await later(3 * SPAN);
    expect((await cngnOf(pools)).average).toBeUndefined();
    await new Promise((wait) => setTimeout(wait, averages.intervalMs + 50));
    await averages.tick();
    const kept = (await readings()).filter((row) => row.token === 'CNGN');
    expect(kept).toHaveLength(1);
    expect(BigInt(kept[0]!.block_timestamp)).toBeGreaterThan(BigInt(first[0]!.block_timestamp) + BigInt(3 * SPAN));
  });
});
