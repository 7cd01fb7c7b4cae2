import type { Address } from 'viem';

/**
 * A Uniswap V2 pool of a test chain: `token` against the hub (USDC), each side worth `depthUsd` at the sandbox prices.
 * `token` is the registry's symbol: the native coin's pool holds the wrapped native token.
 */
export interface PoolSpec {
  token: string;
  /** What the pool is seeded with, in base units: the token's side and the hub's. */
  tokenUnits: bigint;
  hubUnits: bigint;
}

export interface PoolsSpec {
  /** The account that receives the test tokens' initial supply and seeds the pools with it (the deployer). */
  provider: Address;
  /** Every pool pairs a token with the hub: a swap between two other tokens goes through it. */
  hub: string;
  pools: PoolSpec[];
}

export interface DexContracts {
  factory: Address;
  router: Address;
  /** The pair of each pool, by the registry's symbol of its token (`ETH` for WETH/USDC, `CNGN` for CNGN/USDC). */
  pairs: Record<string, Address>;
  /** The token every pool pairs with. */
  hub: string;
  /** Each pooled token's contract by the registry's symbol, the hub's included: the wrapped token for the native coin. */
  tokens: Record<string, Address>;
  /** The registry's symbol of the native coin, whose pool holds the wrapped token. */
  native: string;
}
