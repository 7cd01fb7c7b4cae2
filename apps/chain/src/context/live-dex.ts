import { getAddress, zeroAddress, type Address, type PublicClient } from 'viem';
import type { LiveChainData } from '@ramp/chains';
import { NATIVE_TOKEN, UniswapV2Factory, UniswapV2Router02, type DexContracts } from '@ramp/evm';
import type { ChainToken } from './platform-contracts';

/** A live chain's DEX as the chain found it: its pools, the wrapped native coin its router wraps with. */
export interface LiveDex {
  dex: DexContracts;
  /** The ERC-20 the router wraps the native coin with: the committed one, or the router's `WETH()` where none is. */
  wrappedNative: Address;
  /** The offered tokens the DEX has no pair of with the hub: not swapped on the chain. */
  unpooled: string[];
}

/**
 * A live chain's pools on the DEX of its committed configuration (LIVE_CHAINS): for each offered token, the factory's
 * `getPair` with the hub. A pair is never derived from a creation-code hash (a DEX's pairs are not the platform's
 * build) nor listed by hand: the factory is the record of which exist, and a token without one is left out of the pools
 * (`unpooled`) rather than refusing the chain, since anyone may create a pair at any time. The wrapped native coin is the
 * committed one, or the router's own `WETH()` where no primary source publishes it (bsc): the router wraps with what
 * its code names, and its code is pinned (chain:deploy).
 */
export async function findLiveDex(
  client: Pick<PublicClient, 'readContract'>,
  live: LiveChainData,
  tokens: readonly ChainToken[],
  nativeSymbol: string,
): Promise<LiveDex> {
  const factory = getAddress(live.dex.factory.address);
  const router = getAddress(live.dex.router.address);
  const wrappedNative = getAddress(
    live.wrappedNative?.address ?? (await client.readContract({ address: router, abi: UniswapV2Router02.abi, functionName: 'WETH' })),
  );
  const contracts = Object.fromEntries(tokens.map((token) => [token.symbol, token.address === NATIVE_TOKEN ? wrappedNative : getAddress(token.address)]));
  const hub = contracts[live.dex.hub];
  if (!hub) throw new Error(`${live.chain}'s DEX hub ${live.dex.hub} is not one of its tokens`);
  const pooled = tokens.filter((token) => token.symbol !== live.dex.hub);
  const pairs = await Promise.all(
    pooled.map((token) => client.readContract({ address: factory, abi: UniswapV2Factory.abi, functionName: 'getPair', args: [contracts[token.symbol]!, hub] })),
  );
  const found = pooled.flatMap((token, index) => (pairs[index] === zeroAddress ? [] : [[token.symbol, getAddress(pairs[index]!)] as const]));
  return {
    dex: { factory, router, hub: live.dex.hub, pairs: Object.fromEntries(found), tokens: contracts, native: nativeSymbol },
    wrappedNative,
    unpooled: pooled.filter((token) => !found.some(([symbol]) => symbol === token.symbol)).map((token) => token.symbol),
  };
}
