import {
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  http,
  parseEther,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { liveChainData } from '@ramp/chains';
import { applyMigrations, ensureDatabase, openDatabase, type ServiceDatabase } from '@ramp/database';
import { HdCustody, readPoolObservations, resolveChains, TestToken, UniswapV2Factory, UniswapV2Pair } from '@ramp/evm';
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
 * 8453), with Uniswap V2's factory and two tokens' code at the live configuration's addresses and a CNGN/USDC pool
 * seeded by someone, the chain's leader reads the pool's accumulator into `chain.pool_observations`, and a read of the
 * pools (any replica's) carries the average once a reading is at least a span old, and none once the readings are older
 * than three spans, until the leader reads again.
 */
describe("pool averages - a live chain's pools judged by their own time-weighted average", () => {
  const node = new AnvilNode({ chainId: 8453 });
  const box = new SecretBox(process.env.CUSTODY_SEALING_KEY, false);
  const custody = HdCustody.sealed(box.seal(ANVIL_MNEMONIC), box);
  const live = liveChainData('base')!;
  const tokenOf = (symbol: string) => getAddress(live.tokens.find((token) => token.symbol === symbol)!.address);
  const anyone = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 9 });
  const SPAN = 10;
  let database: ServiceDatabase;
  let client: PublicClient;
  let pair: Address;

  const send = async (request: { to?: Address; data: Hex }) => {
    const wallet = createWalletClient({ account: anyone, transport: http(node.rpcUrl) });
    const receipt = await client.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ chain: null, ...request }) });
    expect(receipt.status).toBe('success');
    return receipt;
  };
  /** Deploys `bytecode` with its constructor's arguments and places its code at `at` (immutables included). */
  const placeContract = async (at: Address, bytecode: Hex, args: Hex) => {
    const { contractAddress } = await send({ data: `${bytecode}${args.slice(2)}` as Hex });
    await node.rpc('anvil_setCode', [at, await client.getCode({ address: contractAddress! })]);
  };
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
    // The tokens' code (its minter, anyone, an immutable) at USDC's and CNGN's addresses, and Uniswap V2's factory at its own.
    for (const [symbol, decimals] of [
      ['USDC', 6],
      ['CNGN', 6],
    ] as const) {
      const args = encodeAbiParameters(
        [{ type: 'string' }, { type: 'string' }, { type: 'uint8' }, { type: 'address' }, { type: 'address' }, { type: 'uint256' }],
        [symbol, symbol, decimals, anyone.address, anyone.address, 0n],
      );
      await placeContract(tokenOf(symbol), TestToken.bytecode as Hex, args);
    }
    await placeContract(getAddress(live.dex.factory.address), UniswapV2Factory.bytecode as Hex, `0x${'0'.repeat(64)}`);
    await send({
      to: getAddress(live.dex.factory.address),
      data: encodeFunctionData({ abi: UniswapV2Factory.abi, functionName: 'createPair', args: [tokenOf('CNGN'), tokenOf('USDC')] }),
    });
    pair = getAddress(
      await client.readContract({
        address: getAddress(live.dex.factory.address),
        abi: UniswapV2Factory.abi,
        functionName: 'getPair',
        args: [tokenOf('CNGN'), tokenOf('USDC')],
      }),
    );
    // Someone seeds it: 15,000,000 CNGN against 10,000 USDC, 1,500 NGN to the dollar.
    for (const [symbol, units] of [
      ['CNGN', 15_000_000n * 10n ** 6n],
      ['USDC', 10_000n * 10n ** 6n],
    ] as const) {
      await send({ to: tokenOf(symbol), data: encodeFunctionData({ abi: TestToken.abi, functionName: 'mint', args: [pair, units] }) });
    }
    await send({ to: pair, data: encodeFunctionData({ abi: UniswapV2Pair.abi, functionName: 'mint', args: [anyone.address] }) });
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

    // Never read: the pool is there, without an average.
    expect(await cngnOf(pools)).toEqual({ token: 'CNGN', tokenReserve: 15_000_000n * 10n ** 6n, hubReserve: 10_000n * 10n ** 6n });

    await averages.tick();
    const first = await readings();
    expect(first).toHaveLength(1);
    const block = await client.getBlockNumber({ cacheTime: 0 });
    const [reading] = await readPoolObservations(context.client, context.dex!, block);
    expect(first[0]).toEqual({
      token: 'CNGN',
      pair: pair.toLowerCase(),
      block_timestamp: reading!.timestamp.toString(),
      cumulative: reading!.cumulative.toString(),
    });
    // Within the interval (a tenth of the span), the leader reads nothing more.
    await averages.tick();
    expect(await readings()).toHaveLength(1);

    // Less than a span after the reading: no average yet.
    await later(SPAN / 2);
    expect((await cngnOf(pools)).average).toBeUndefined();

    // A span after it, any replica (here one that never read) averages the steady pool to its price.
    await later(SPAN);
    const replica = new Pools(contextOf(), 0, new PoolAverages(contextOf(), SPAN));
    const averaged = (await cngnOf(replica)).average!;
    expect(averaged.seconds).toBeGreaterThanOrEqual(SPAN);
    // 10,000 USDC per 15,000,000 CNGN, to the accumulator's precision (UQ112x112).
    expect(averaged.hubPerToken.sub(dec(10_000).div(15_000_000)).abs().lessThan('1e-30')).toBe(true);

    // Three spans after the last reading, it is too old to stand for the pool: no average, until the leader reads again
    // (and deletes what is older than three spans).
    await later(3 * SPAN);
    expect((await cngnOf(pools)).average).toBeUndefined();
    await new Promise((wait) => setTimeout(wait, averages.intervalMs + 50));
    await averages.tick();
    const kept = await readings();
    expect(kept).toHaveLength(1);
    expect(BigInt(kept[0]!.block_timestamp)).toBeGreaterThan(BigInt(first[0]!.block_timestamp) + BigInt(3 * SPAN));
  });
});
