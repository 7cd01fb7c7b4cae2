import {
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  encodeFunctionData,
  http,
  maxUint256,
  parseEther,
  type Address,
  type PublicClient,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { getChain } from '@ramp/chains';
import { dec } from '@ramp/money';
import { averageBetween, hubAmountsOut, Q112, type HubPools, type PoolObservation } from '@ramp/pricing';
import { ANVIL_MNEMONIC, AnvilNode } from '@ramp/testing';
import { TestToken, UniswapV2Factory, UniswapV2Pair, UniswapV2Router02 } from './artifacts.generated';
import { HdCustody, evmPath } from './custody';
import { deployPlatformContracts, platformContractAddresses, testContractsOf, type PlatformContracts } from './deployment';
import { readHubPools, readPoolObservations, seedPools } from './pools';
import { revertReasonOf } from './revert-reason';

describe('pools - Uniswap V2 from its published artifacts on a real anvil node, seeded at the sandbox prices', () => {
  const node = new AnvilNode({ chainId: 84532 });
  const faucet = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 });
  const provider = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 1 });
  const trader = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 4 });
  const hot = HdCustody.development().signer(evmPath("m/44'/60'/1'/0/0"));
  const spec = testContractsOf(getChain('base'), faucet.address, hot.address, provider.address);
  let client: PublicClient;
  let contracts: PlatformContracts;
  const wallet = (account = provider) => createWalletClient({ account, transport: http(node.rpcUrl) });
  const tokenOf = (symbol: string): Address => contracts.dex.tokens[symbol]!;

  /** The pools as the chain service reads them. */
  const readPools = async (): Promise<HubPools> => readHubPools(client, contracts.dex, await client.getBlockNumber({ cacheTime: 0 }));
  const mint = async (symbol: string, to: Address, units: bigint) => {
    const hash = await wallet(faucet).writeContract({
      chain: null,
      address: contracts.tokens[symbol]!,
      abi: TestToken.abi,
      functionName: 'mint',
      args: [to, units],
    });
    await client.waitForTransactionReceipt({ hash });
  };
  const approve = async (symbol: string, account = trader) => {
    const hash = await wallet(account).writeContract({
      chain: null,
      address: contracts.tokens[symbol]!,
      abi: TestToken.abi,
      functionName: 'approve',
      args: [contracts.dex.router, maxUint256],
    });
    await client.waitForTransactionReceipt({ hash });
  };
  const deadline = () => BigInt(Math.floor(Date.now() / 1000) + 600);

  beforeAll(async () => {
    await node.start();
    client = createPublicClient({ transport: http(node.rpcUrl) }) as PublicClient;
    contracts = await deployPlatformContracts(client, wallet(faucet), spec, parseEther('1'));
    // Before the platform seeds, someone else creates one of the pairs (anyone may): it is seeded all the same.
    const created = await wallet(trader).writeContract({
      chain: null,
      address: contracts.dex.factory,
      abi: UniswapV2Factory.abi,
      functionName: 'createPair',
      args: [tokenOf('CNGN'), tokenOf('USDC')],
    });
    await client.waitForTransactionReceipt({ hash: created });
    await seedPools(client, wallet(), spec.pools, contracts.dex);
  }, 120_000);

  afterAll(async () => {
    await node.stop();
  });

  it('deploys the factory and the router at their computed addresses and seeds every pool at the sandbox prices, once', async () => {
    expect(contracts.dex).toEqual(platformContractAddresses(spec).dex);
    expect(Object.keys(contracts.dex.pairs).sort()).toEqual(['CNGN', 'ETH', 'USDT', 'cbBTC']);
    const pools = await readPools();
    const reserves = Object.fromEntries(pools.pools.map((pool) => [pool.token, [pool.tokenReserve, pool.hubReserve]]));
    // Two million dollars a side: 3,000,000,000 CNGN (1,500 NGN to the dollar), 625 ETH (3,200), 21.05263157 cbBTC (95,000).
    expect(reserves).toEqual({
      CNGN: [3_000_000_000_000_000n, 2_000_000_000_000n],
      ETH: [625n * 10n ** 18n, 2_000_000_000_000n],
      USDT: [2_000_000_000_000n, 2_000_000_000_000n],
      cbBTC: [2_105_263_157n, 2_000_000_000_000n],
    });
    const nonce = await client.getTransactionCount({ address: provider.address });
    await seedPools(client, wallet(), spec.pools, contracts.dex);
    expect(await client.getTransactionCount({ address: provider.address })).toBe(nonce);
  });

  it("prices as the router does: getAmountsOut through the hub equals the domain's hubAmountsOut, to the base unit", async () => {
    const pools = await readPools();
    for (const [from, to, amountIn] of [
      ['USDC', 'ETH', 1_000n * 10n ** 6n],
      ['CNGN', 'ETH', 1_500_000n * 10n ** 6n],
      ['ETH', 'cbBTC', 10n ** 18n],
      ['USDT', 'CNGN', 500_000n * 10n ** 6n],
    ] as const) {
      const quoted = hubAmountsOut(pools, from, to, amountIn)!;
      const onChain = await client.readContract({
        address: contracts.dex.router,
        abi: UniswapV2Router02.abi,
        functionName: 'getAmountsOut',
        args: [amountIn, quoted.path.map(tokenOf)],
      });
      expect([...onChain]).toEqual(quoted.amounts);
    }
  });

  it("a swap through the router emits the pair's Swap and delivers at least its minimum; a minimum the pool cannot meet reverts with the reason", async () => {
    await mint('CNGN', trader.address, 3_000_000n * 10n ** 6n);
    await approve('CNGN');
    const path = [contracts.tokens.CNGN!, contracts.tokens.USDC!, contracts.wrappedNative];
    const expected = hubAmountsOut(await readPools(), 'CNGN', 'ETH', 1_500_000n * 10n ** 6n)!.amounts[2]!;
    const swap = (minimum: bigint) =>
      encodeFunctionData({
        abi: UniswapV2Router02.abi,
        functionName: 'swapExactTokensForTokens',
        args: [1_500_000n * 10n ** 6n, minimum, path, trader.address, deadline()],
      });
    const hash = await wallet(trader).sendTransaction({ chain: null, to: contracts.dex.router, data: swap(expected) });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    const swaps = receipt.logs.flatMap((log) => {
      if (!Object.values(contracts.dex.pairs).some((pair) => pair.toLowerCase() === log.address.toLowerCase())) return [];
      const event = decodeEventLog({ abi: UniswapV2Pair.abi, data: log.data, topics: log.topics });
      return event.eventName === 'Swap' ? [event] : [];
    });
    // Two hops, two pairs: CNGN/USDC, then USDC/WETH.
    expect(swaps).toHaveLength(2);
    expect(await client.readContract({ address: contracts.wrappedNative, abi: TestToken.abi, functionName: 'balanceOf', args: [trader.address] })).toBe(
      expected,
    );

    // The first swap moved the pools: the same trade now gives less, so the same minimum cannot be met.
    const failing = await client.call({ account: trader.address, to: contracts.dex.router, data: swap(expected) }).catch((error: unknown) => error);
    expect(revertReasonOf(failing)).toContain('UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT');
  });

  it("reads each pool's price accumulator as the pair keeps it: a steady pool averages to its price, a trade counts by the seconds its price held", async () => {
    const ethOf = (readings: PoolObservation[]) => readings.find((reading) => reading.token === 'ETH')!;
    const spotOf = async (blockNumber: bigint) => {
      const pool = (await readHubPools(client, contracts.dex, blockNumber)).pools.find((candidate) => candidate.token === 'ETH')!;
      return { ...pool, price: (pool.hubReserve * Q112) / pool.tokenReserve };
    };
    const later = async (seconds: number) => {
      await node.rpc('evm_increaseTime', [seconds]);
      await node.rpc('evm_mine', []);
      return client.getBlockNumber({ cacheTime: 0 });
    };
    const first = await client.getBlockNumber({ cacheTime: 0 });
    const start = await readPoolObservations(client, contracts.dex, first);
    expect(start.map((reading) => reading.token).sort()).toEqual(['CNGN', 'ETH', 'USDT', 'cbBTC']);
    const steady = await later(600);
    const held = averageBetween(ethOf(start), ethOf(await readPoolObservations(client, contracts.dex, steady)))!;
    expect(held.seconds).toBeGreaterThanOrEqual(600);
    const before = await spotOf(first);
    expect(held.hubPerToken.toFixed()).toBe(dec(before.price.toString()).div(Q112.toString()).toFixed());

    // Someone buys ETH with 100,000 USDC: the pair writes its accumulator in that block, and its new price holds after.
    const from = ethOf(await readPoolObservations(client, contracts.dex, steady));
    await mint('USDC', trader.address, 100_000n * 10n ** 6n);
    await approve('USDC');
    const hash = await wallet(trader).writeContract({
      chain: null,
      address: contracts.dex.router,
      abi: UniswapV2Router02.abi,
      functionName: 'swapExactTokensForTokens',
      args: [100_000n * 10n ** 6n, 0n, [tokenOf('USDC'), contracts.wrappedNative], trader.address, deadline()],
    });
    const traded = (await client.waitForTransactionReceipt({ hash })).blockNumber;
    const tradedAt = (await client.getBlock({ blockNumber: traded })).timestamp;
    const after = await spotOf(traded);
    expect(after.price).toBeGreaterThan(before.price);
    // The reading in the trade's block is what the pair wrote there.
    const written = await client.readContract({
      address: contracts.dex.pairs.ETH!,
      abi: UniswapV2Pair.abi,
      functionName: BigInt(tokenOf('USDC')) < BigInt(contracts.wrappedNative) ? 'price1CumulativeLast' : 'price0CumulativeLast',
      blockNumber: traded,
    });
    expect(ethOf(await readPoolObservations(client, contracts.dex, traded)).cumulative).toBe(written);

    const to = ethOf(await readPoolObservations(client, contracts.dex, await later(300)));
    const average = averageBetween(from, to)!;
    const growth = before.price * (tradedAt - from.timestamp) + after.price * (to.timestamp - tradedAt);
    expect(average.hubPerToken.toFixed()).toBe(
      dec(growth.toString())
        .div((to.timestamp - from.timestamp).toString())
        .div(Q112.toString())
        .toFixed(),
    );
    // Between the two prices, nearer the one held longer.
    const spot = (pool: { hubReserve: bigint; tokenReserve: bigint }) => dec(pool.hubReserve.toString()).div(pool.tokenReserve.toString());
    expect(average.hubPerToken.greaterThan(spot(before)) && average.hubPerToken.lessThan(spot(after))).toBe(true);
  });
});
