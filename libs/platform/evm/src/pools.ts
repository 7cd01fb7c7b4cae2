import {
  encodeFunctionData,
  encodePacked,
  getAddress,
  getContractAddress,
  keccak256,
  maxUint256,
  parseEventLogs,
  type Account,
  type Address,
  type Hex,
  type Log,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { cumulativeAt, hubPath, type HubPools, type PoolObservation } from '@ramp/pricing';
import { TestToken, UniswapV2Pair, UniswapV2Router02 } from './artifacts.generated';
import type { DexContracts, PoolsSpec } from './dex-types';

/** The published Uniswap V2 pair's creation code hash, as its factory and router compute pair addresses. */
const PAIR_INIT_CODE_HASH = keccak256(UniswapV2Pair.bytecode);

/** The address of the Uniswap V2 pair of two tokens, as the factory creates it (whether it exists yet or not). */
export function pairAddress(factory: Address, tokenA: Address, tokenB: Address): Address {
  const [token0, token1] = sortTokens(tokenA, tokenB);
  return getContractAddress({
    opcode: 'CREATE2',
    from: factory,
    salt: keccak256(encodePacked(['address', 'address'], [token0, token1])),
    bytecodeHash: PAIR_INIT_CODE_HASH,
  });
}

/** Uniswap's order of a pair's tokens: token0 has the lower address. */
export function sortTokens(tokenA: Address, tokenB: Address): [Address, Address] {
  return BigInt(tokenA) < BigInt(tokenB) ? [getAddress(tokenA), getAddress(tokenB)] : [getAddress(tokenB), getAddress(tokenA)];
}

/**
 * Seeds the pools that have no liquidity yet, from the provider (who received the test tokens' initial supply at
 * deployment): one `addLiquidity` through the router per pool (`addLiquidityETH` for the native coin's, which the router
 * wraps), which creates the pair, moves both sides and mints in one transaction, so nothing is ever left half-seeded
 * between two runs. Idempotent: a pool with liquidity is left alone, an approval given is not given again.
 */
export async function seedPools(client: PublicClient, provider: WalletClient & { account: Account }, pools: PoolsSpec, dex: DexContracts): Promise<void> {
  if (getAddress(provider.account.address) !== getAddress(pools.provider))
    throw new Error(`the pools are seeded by ${pools.provider}, not ${provider.account.address}`);
  const send = async (request: { to: Address; data: Hex; value?: bigint }) => {
    const hash = await provider.sendTransaction({ account: provider.account, chain: null, ...request });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`seeding the pools: ${hash} reverted`);
  };
  const approve = async (token: Address) => {
    const allowance = await client.readContract({
      address: token,
      abi: TestToken.abi,
      functionName: 'allowance',
      args: [provider.account.address, dex.router],
    });
    if (allowance === 0n) await send({ to: token, data: encodeFunctionData({ abi: TestToken.abi, functionName: 'approve', args: [dex.router, maxUint256] }) });
  };
  const hub = dex.tokens[dex.hub]!;
  for (const pool of pools.pools) {
    const pair = dex.pairs[pool.token]!;
    if ((await client.getCode({ address: pair })) && (await client.readContract({ address: pair, abi: UniswapV2Pair.abi, functionName: 'totalSupply' })) > 0n)
      continue;
    const to = provider.account.address;
    await approve(hub);
    if (pool.token === dex.native) {
      const data = encodeFunctionData({
        abi: UniswapV2Router02.abi,
        functionName: 'addLiquidityETH',
        args: [hub, pool.hubUnits, pool.hubUnits, pool.tokenUnits, to, maxUint256],
      });
      await send({ to: dex.router, data, value: pool.tokenUnits });
    } else {
      const token = dex.tokens[pool.token]!;
      await approve(token);
      const data = encodeFunctionData({
        abi: UniswapV2Router02.abi,
        functionName: 'addLiquidity',
        args: [token, hub, pool.tokenUnits, pool.hubUnits, pool.tokenUnits, pool.hubUnits, to, maxUint256],
      });
      await send({ to: dex.router, data });
    }
  }
}

/**
 * The reserves of every pool at a block, ordered token/hub: one `getReserves` per pair. A pair with no code yet (a
 * chain not seeded) is an empty pool.
 */
export async function readHubPools(client: PublicClient, dex: DexContracts, blockNumber: bigint): Promise<HubPools> {
  const hub = dex.tokens[dex.hub]!;
  const pools = await Promise.all(
    Object.entries(dex.pairs).map(async ([symbol, pair]) => {
      let reserves: readonly [bigint, bigint, number];
      try {
        reserves = await client.readContract({ address: pair, abi: UniswapV2Pair.abi, functionName: 'getReserves', blockNumber });
      } catch (error) {
        if (await client.getCode({ address: pair, blockNumber })) throw error;
        return { token: symbol, tokenReserve: 0n, hubReserve: 0n };
      }
      const hubFirst = sortTokens(hub, dex.tokens[symbol]!)[0] === getAddress(hub);
      return { token: symbol, tokenReserve: hubFirst ? reserves[1] : reserves[0], hubReserve: hubFirst ? reserves[0] : reserves[1] };
    }),
  );
  return { hub: dex.hub, blockNumber, pools };
}

/**
 * A reading of every pool's hub-per-token price accumulator at a block (`cumulativeAt` the block's timestamp): two
 * readings some time apart give the pool's time-weighted average over that time (`averageBetween`). A pair with no
 * code or no liquidity at the block is not read: its accumulator does not grow, and an average over it would be none.
 */
export async function readPoolObservations(client: PublicClient, dex: DexContracts, blockNumber: bigint): Promise<PoolObservation[]> {
  const hub = getAddress(dex.tokens[dex.hub]!);
  const [block, readings] = await Promise.all([
    client.getBlock({ blockNumber }),
    Promise.all(
      Object.entries(dex.pairs).map(async ([token, pair]) => {
        const hubFirst = sortTokens(hub, dex.tokens[token]!)[0] === hub;
        let reserves: readonly [bigint, bigint, number];
        let cumulativeLast: bigint;
        try {
          [reserves, cumulativeLast] = await Promise.all([
            client.readContract({ address: pair, abi: UniswapV2Pair.abi, functionName: 'getReserves', blockNumber }),
            // price0 is token1 per token0: the hub per the token when the token is token0.
            client.readContract({
              address: pair,
              abi: UniswapV2Pair.abi,
              functionName: hubFirst ? 'price1CumulativeLast' : 'price0CumulativeLast',
              blockNumber,
            }),
          ]);
        } catch (error) {
          // As readHubPools: a pair not created yet is no pool; any other failure is the node's, and thrown.
          if (await client.getCode({ address: pair, blockNumber })) throw error;
          return undefined;
        }
        const [tokenReserve, hubReserve] = hubFirst ? [reserves[1], reserves[0]] : [reserves[0], reserves[1]];
        if (tokenReserve === 0n || hubReserve === 0n) return undefined;
        return { token, state: { cumulativeLast, tokenReserve, hubReserve, blockTimestampLast: reserves[2] } };
      }),
    ),
  ]);
  return readings.flatMap((reading) =>
    reading ? [{ token: reading.token, blockNumber, timestamp: block.timestamp, cumulative: cumulativeAt(reading.state, block.timestamp) }] : [],
  );
}

/** A swap through the router: exactly `amountIn` of one pooled token (by registry symbol) for at least `minimumOut` of another. */
export interface RouterSwap {
  fromToken: string;
  toToken: string;
  /** Base units of fromToken. */
  amountIn: bigint;
  /** Base units of toToken: below it, the router reverts (`UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT`). */
  minimumOut: bigint;
  /** Who receives the output. */
  to: Address;
  /** Unix seconds after which the router refuses it (`UniswapV2Router: EXPIRED`). */
  deadline: bigint;
}

/** The pool tokens a swap passes through, as addresses (the wrapped token for the native coin). */
export function routerPath(dex: DexContracts, fromToken: string, toToken: string): Address[] {
  return hubPath(fromToken, toToken, dex.hub).map((symbol) => {
    const address = dex.tokens[symbol];
    if (!address) throw new Error(`${symbol} has no pool on this chain`);
    return address;
  });
}

/**
 * The router call of a swap: `swapExactETHForTokens` when the native coin goes in (sent as the call's value),
 * `swapExactTokensForETH` when it comes out (the router unwraps it), `swapExactTokensForTokens` otherwise.
 */
export function routerSwapCall(dex: DexContracts, swap: RouterSwap): { to: Address; data: Hex; value?: bigint } {
  const path = routerPath(dex, swap.fromToken, swap.toToken);
  const abi = UniswapV2Router02.abi;
  if (swap.fromToken === dex.native) {
    return {
      to: dex.router,
      value: swap.amountIn,
      data: encodeFunctionData({ abi, functionName: 'swapExactETHForTokens', args: [swap.minimumOut, path, swap.to, swap.deadline] }),
    };
  }
  const functionName = swap.toToken === dex.native ? 'swapExactTokensForETH' : 'swapExactTokensForTokens';
  return { to: dex.router, data: encodeFunctionData({ abi, functionName, args: [swap.amountIn, swap.minimumOut, path, swap.to, swap.deadline] }) };
}

/**
 * What a mined swap gave, from its receipt: the output of the `Swap` event of the path's last pair (amount0Out or
 * amount1Out, the other is 0), which is what the recipient received (the router unwraps it for the native coin).
 * Undefined when the receipt has no such event (it reverted, or it was not this swap).
 */
export function swapOutputOf(dex: DexContracts, fromToken: string, toToken: string, logs: readonly Log[]): bigint | undefined {
  // The last hop's pair as the DEX names it (dex.pairs: the factory's getPair on a live chain, whose pairs' creation
  // code is not the platform's build), keyed by its token other than the hub.
  const [before, after] = hubPath(fromToken, toToken, dex.hub).slice(-2) as [string, string];
  const pooled = after === dex.hub ? before : after;
  const pair = dex.pairs[pooled];
  if (!pair) throw new Error(`${pooled} has no pool on this chain`);
  const lastPair = getAddress(pair);
  const swaps = parseEventLogs({ abi: UniswapV2Pair.abi, eventName: 'Swap', logs: [...logs] }).filter((log) => getAddress(log.address) === lastPair);
  const last = swaps[swaps.length - 1];
  return last && last.args.amount0Out + last.args.amount1Out;
}

/** What the router's `getAmountsOut` says a swap would give at a block (the latest when none is given). */
export async function routerAmountOut(
  client: PublicClient,
  dex: DexContracts,
  fromToken: string,
  toToken: string,
  amountIn: bigint,
  blockNumber?: bigint,
): Promise<bigint> {
  const path = routerPath(dex, fromToken, toToken);
  const amounts = await client.readContract({
    address: dex.router,
    abi: UniswapV2Router02.abi,
    functionName: 'getAmountsOut',
    args: [amountIn, path],
    ...(blockNumber !== undefined && { blockNumber }),
  });
  return amounts[amounts.length - 1]!;
}
