import {
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  zeroAddress,
  type Account,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient,
} from 'viem';
import type { LiveChainData } from '@ramp/chains';
import { toBaseUnits } from '@ramp/money';
import { TestToken, UniswapV2Factory, UniswapV2Pair, UniswapV2Router02, WrappedNative } from './artifacts.generated';
import { LOCAL_POOL_DEPTH_USD, unitsWorth } from './deployment';
import type { DexContracts } from './dex-types';
import { pairAddress, seedPools } from './pools';

/** The rehearsal's end user (LIVE.md section 4): anvil's default account 7, holding every token on both stand-ins. */
export const REHEARSAL_END_USER: Address = '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955';

/** What the rehearsal's end user holds on each stand-in (LIVE.md section 4): pass it in `funded`. */
export const REHEARSAL_FUNDING: StandInFunding = Object.freeze({ address: REHEARSAL_END_USER, units: '100000', native: '10' });

/** An account the stand-in funds: `units` whole units of every token the chain offers live, and `native` of its coin. */
export interface StandInFunding {
  address: Address;
  units: string;
  native: string;
}

export interface LiveStandInOptions {
  /**
   * Deploys the stand-ins' code, mints (it is the tokens' minter) and seeds the pools; its native coin is topped up for
   * the pools' native side by `rpc` (anvil_setBalance).
   */
  operator: WalletClient & { account: Account };
  /** The node's own JSON-RPC methods (`anvil_setCode`, `anvil_setBalance`). */
  rpc: (method: string, params: unknown[]) => Promise<unknown>;
  /** Where the wrapped native coin goes where the live data names none (bsc: its router names it). */
  wrappedNative?: Address;
  /** Each side of every pool, in US dollars at the sandbox prices (LOCAL_POOL_DEPTH_USD). */
  depthUsd?: string;
  funded?: readonly StandInFunding[];
}

/** What the stand-in put where: the DEX as the chain service finds it (its pairs by token, the wrapped coin's included). */
export interface LiveStandIn {
  wrappedNative: Address;
  dex: DexContracts;
}

/**
 * Makes an anvil node stand in for a live chain (the live rehearsal, LIVE.md section 4; tests of the live path): the
 * tokens and the DEX of the committed live configuration at their mainnet addresses (each token as a test token with
 * its real decimals, the wrapped native coin, Uniswap V2's factory and router: the router's immutables name the factory
 * and the wrapped coin at theirs), placed with `anvil_setCode` from a deployment elsewhere on the node, so that their
 * immutables come along (their storage does not: a token's name and symbol read empty); every offered token's pool
 * against the DEX's hub seeded at the sandbox prices, as the test chains' are; and the accounts in `funded` topped up
 * (REHEARSAL_FUNDING). Not the EntryPoint: the smart accounts' parts are deployed as on the test chains. Idempotent:
 * code already there, a pool with liquidity and a balance at its amount are left alone, so a node kept between runs is
 * stood in again for nothing.
 */
export async function standInLiveChain(client: PublicClient, data: LiveChainData, options: LiveStandInOptions): Promise<LiveStandIn> {
  const { operator, rpc } = options;
  const send = async (request: { to?: Address; data: Hex; value?: bigint }) => {
    const hash = await operator.sendTransaction({ account: operator.account, chain: null, ...request });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`standing in for ${data.chain}: ${hash} reverted`);
    return receipt;
  };
  const place = async (at: Address, bytecode: Hex, args: Hex) => {
    if (await client.getCode({ address: at })) return;
    const { contractAddress } = await send({ data: `${bytecode}${args.slice(2)}` as Hex });
    await rpc('anvil_setCode', [at, await client.getCode({ address: contractAddress! })]);
  };
  if (data.wrappedNative && options.wrappedNative && getAddress(options.wrappedNative) !== getAddress(data.wrappedNative.address))
    throw new Error(`${data.chain}'s live data names its wrapped coin (${data.wrappedNative.address}): it is not placed elsewhere`);
  const wrapped = getAddress(data.wrappedNative?.address ?? options.wrappedNative ?? zeroAddress);
  if (wrapped === zeroAddress) throw new Error(`${data.chain}'s live data names no wrapped native coin: say where the stand-in's goes`);

  for (const token of data.tokens) {
    const args = encodeAbiParameters(
      [{ type: 'string' }, { type: 'string' }, { type: 'uint8' }, { type: 'address' }, { type: 'address' }, { type: 'uint256' }],
      [token.symbol, token.symbol, token.decimals, operator.account.address, operator.account.address, 0n],
    );
    await place(getAddress(token.address), TestToken.bytecode as Hex, args);
  }
  const native = data.native.symbol;
  await place(wrapped, WrappedNative.bytecode as Hex, encodeAbiParameters([{ type: 'string' }, { type: 'string' }], [`Wrapped ${native}`, `W${native}`]));
  const factory = getAddress(data.dex.factory.address);
  const router = getAddress(data.dex.router.address);
  await place(factory, UniswapV2Factory.bytecode as Hex, encodeAbiParameters([{ type: 'address' }], [operator.account.address]));
  await place(router, UniswapV2Router02.bytecode as Hex, encodeAbiParameters([{ type: 'address' }, { type: 'address' }], [factory, wrapped]));
  // A router placed by an earlier run names its wrapped coin in its code: another one now would pool the native coin
  // through the old one.
  const routed = getAddress(await client.readContract({ address: router, abi: UniswapV2Router02.abi, functionName: 'WETH' }));
  if (routed !== wrapped) throw new Error(`${data.chain}'s stand-in router names ${routed} as its wrapped coin, not ${wrapped}: stand in on a fresh node`);

  const tokens: Record<string, Address> = Object.fromEntries(data.tokens.map((token) => [token.symbol, getAddress(token.address)]));
  tokens[native] = wrapped;
  const hub = data.tokens.find((token) => token.symbol === data.dex.hub)!;
  const depthUsd = options.depthUsd ?? LOCAL_POOL_DEPTH_USD;
  const pooled = [...data.tokens.filter((token) => token !== hub), { symbol: native, decimals: data.native.decimals }];
  const pools = pooled.map((token) => ({
    token: token.symbol,
    tokenUnits: unitsWorth(depthUsd, token.symbol, token.decimals),
    hubUnits: unitsWorth(depthUsd, hub.symbol, hub.decimals),
  }));
  const dex: DexContracts = {
    factory,
    router,
    hub: hub.symbol,
    native,
    tokens,
    // The stand-in's factory is the published Uniswap V2 code: its pairs are where the router computes them.
    pairs: Object.fromEntries(pooled.map((token) => [token.symbol, pairAddress(factory, tokens[token.symbol]!, tokens[hub.symbol]!)])),
  };
  const topUp = async (holder: Address, symbol: string, units: bigint) => {
    if (symbol === native) {
      const balance = await client.getBalance({ address: holder });
      if (balance < units) await rpc('anvil_setBalance', [holder, `0x${units.toString(16)}`]);
      return;
    }
    const balance = await client.readContract({ address: tokens[symbol]!, abi: TestToken.abi, functionName: 'balanceOf', args: [holder] });
    if (balance >= units) return;
    await send({ to: tokens[symbol]!, data: encodeFunctionData({ abi: TestToken.abi, functionName: 'mint', args: [holder, units - balance] }) });
  };
  // What the pools not seeded yet need, minted to the operator (tokens) or set (the native coin), then seeded.
  const unseeded = [];
  for (const pool of pools) {
    const pair = dex.pairs[pool.token]!;
    const seeded =
      (await client.getCode({ address: pair })) && (await client.readContract({ address: pair, abi: UniswapV2Pair.abi, functionName: 'totalSupply' })) > 0n;
    if (!seeded) unseeded.push(pool);
  }
  const operatorAddress = operator.account.address;
  if (unseeded.length > 0) {
    await topUp(
      operatorAddress,
      hub.symbol,
      unseeded.reduce((sum, pool) => sum + pool.hubUnits, 0n),
    );
    // The native coin's pool takes its side as value, and the operator pays every transaction's gas in it.
    for (const pool of unseeded) await topUp(operatorAddress, pool.token, pool.tokenUnits + (pool.token === native ? 10n ** 18n : 0n));
    await seedPools(client, operator, { provider: operatorAddress, hub: hub.symbol, pools: unseeded }, dex);
  }

  for (const account of options.funded ?? []) {
    for (const token of data.tokens) await topUp(account.address, token.symbol, toBaseUnits(account.units, token.decimals));
    await topUp(account.address, native, toBaseUnits(account.native, data.native.decimals));
  }
  return { wrappedNative: wrapped, dex };
}
