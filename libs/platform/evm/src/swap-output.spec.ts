import { encodeAbiParameters, encodeEventTopics, getAddress, type Address, type Log } from 'viem';
import { UniswapV2Pair } from './artifacts.generated';
import type { DexContracts } from './dex-types';
import { swapOutputOf } from './pools';

const address = (n: number) => getAddress(`0x${n.toString(16).padStart(40, '0')}`);

/** A pair's Swap event as a receipt carries it. */
function swapLog(pair: Address, amount0Out: bigint, amount1Out: bigint): Log {
  const topics = encodeEventTopics({ abi: UniswapV2Pair.abi, eventName: 'Swap', args: { sender: address(1), to: address(2) } });
  const data = encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }], [0n, 0n, amount0Out, amount1Out]);
  return { address: pair, topics, data } as unknown as Log;
}

describe('swapOutputOf - what a mined swap gave, from the Swap event of the pair the DEX named for its last hop', () => {
  // A live DEX's pairs are at addresses of its own creation code, not derivable from the platform's build.
  const dex: DexContracts = {
    factory: address(100),
    router: address(101),
    hub: 'USDC',
    pairs: { CNGN: address(200), ETH: address(201) },
    tokens: { USDC: address(10), CNGN: address(11), ETH: address(12) },
    native: 'ETH',
  };

  it('reads the last hop of a two-hop swap (ETH → USDC → CNGN) from the CNGN pair, not from the first hop', () => {
    const logs = [swapLog(address(201), 0n, 3_200_000_000n), swapLog(address(200), 4_800_000_000n, 0n)];
    expect(swapOutputOf(dex, 'ETH', 'CNGN', logs)).toBe(4_800_000_000n);
  });

  it('reads a swap into the hub from the pair of the token sold, and a swap out of it from the pair of the token bought', () => {
    expect(swapOutputOf(dex, 'CNGN', 'USDC', [swapLog(address(200), 0n, 7n)])).toBe(7n);
    expect(swapOutputOf(dex, 'USDC', 'ETH', [swapLog(address(201), 9n, 0n)])).toBe(9n);
  });

  it('takes no Swap event of another address for the pair, and refuses a path with a token the DEX has no pool of', () => {
    expect(swapOutputOf(dex, 'CNGN', 'USDC', [swapLog(address(999), 0n, 7n)])).toBeUndefined();
    expect(() => swapOutputOf({ ...dex, pairs: { ETH: address(201) } }, 'CNGN', 'USDC', [])).toThrow('CNGN has no pool on this chain');
  });
});
