import type { Address } from 'viem';
import { AppError } from '@ramp/contracts';
import type { DexContracts } from '@ramp/evm';
import { swapDex } from './pools';

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address;
const token = (symbol: string, n: number) => ({ symbol, decimals: 6, address: address(n) });
const [usdc, eth, cngn, usdt] = [token('USDC', 1), token('ETH', 2), token('CNGN', 3), token('USDT', 4)];
const dex: DexContracts = {
  factory: address(10),
  router: address(11),
  hub: 'USDC',
  native: 'ETH',
  tokens: { USDC: usdc.address, ETH: address(12), CNGN: cngn.address, USDT: usdt.address },
  // USDT is deployed but has no pool.
  pairs: { ETH: address(20), CNGN: address(21) },
};
const where = { chain: 'base', environment: 'test' as const };

function refusal(run: () => unknown): Pick<AppError, 'reason' | 'field'> {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { reason: error.reason, field: error.field };
    throw error;
  }
  throw new Error('not refused');
}

describe('swaps - which swaps the pools take', () => {
  it('a swap between the hub and a pooled token, or between two pooled tokens, goes through the pools', () => {
    expect(swapDex(dex, where, { fromToken: usdc, toToken: eth })).toBe(dex);
    expect(swapDex(dex, where, { fromToken: eth, toToken: cngn })).toBe(dex);
  });

  it('a chain without the platform pools refuses every swap, naming the chain', () => {
    expect(refusal(() => swapDex(undefined, where, { fromToken: usdc, toToken: eth }))).toEqual({ reason: 'UNSUPPORTED_CHAIN', field: 'chain' });
  });

  it('a token without a pool is refused, naming its side', () => {
    expect(refusal(() => swapDex(dex, where, { fromToken: usdt, toToken: usdc }))).toEqual({ reason: 'UNSUPPORTED_TOKEN', field: 'fromToken' });
    expect(refusal(() => swapDex(dex, where, { fromToken: usdc, toToken: token('WBTC', 5) }))).toEqual({ reason: 'UNSUPPORTED_TOKEN', field: 'toToken' });
  });

  it('a swap of a token to itself is refused', () => {
    expect(refusal(() => swapDex(dex, where, { fromToken: eth, toToken: eth }))).toEqual({ reason: 'INVALID_FIELD', field: 'toToken' });
  });
});
