import type { Address, PublicClient } from 'viem';
import { TestToken } from './artifacts.generated';
import { NATIVE_TOKEN } from './deposit-watcher';

/**
 * Most holders read in one eth_call. A deployless call is contract creation code, which a node refuses above 49,152
 * bytes (EIP-3860): the multicall's bytecode (about 4 KB) and 224 bytes per balanceOf in aggregate3's arguments
 * put the most at about 190; 150 leaves room, and stays far below any node's eth_call gas cap (about 3,000 gas each).
 */
export const BALANCES_PER_CALL = 150;

/**
 * Most balances the multicall could not read asked alone at a time: a node that refuses the whole multicall (its
 * creation code above a provider's limit, a provider that takes no eth_call without `to`) is asked a group at a time,
 * never a burst of one request per holder.
 */
export const ALONE_AT_ONCE = 10;

/**
 * What each of `holders` holds of `token` (an ERC-20's address, or NATIVE_TOKEN for the chain's coin) at `blockNumber`,
 * in base units, in the holders' order. A token's balances are read by Multicall3's `aggregate3` run deployless (viem's
 * published bytecode carried in the eth_call itself, so nothing is deployed and it is the same on every chain), one
 * eth_call per BALANCES_PER_CALL holders instead of one per holder; the native coin's by eth_getBalance each (a
 * batching transport sends them together). A token with no code at the block holds nothing. A balance the multicall
 * could not read (its call reverted, or the node refused the whole eth_call) is asked alone, ALONE_AT_ONCE at a time,
 * so that what fails is the node's answer, never a 0.
 */
export async function balancesAt(client: PublicClient, token: Address, holders: readonly Address[], blockNumber: bigint): Promise<bigint[]> {
  if (holders.length === 0) return [];
  if (token === NATIVE_TOKEN) return Promise.all(holders.map((address) => client.getBalance({ address, blockNumber })));
  if (!(await client.getCode({ address: token, blockNumber }))) return holders.map(() => 0n);
  const alone = (holder: Address) => client.readContract({ address: token, abi: TestToken.abi, functionName: 'balanceOf', args: [holder], blockNumber });
  // One holder: the call itself, without the multicall's bytecode.
  if (holders.length === 1) return [await alone(holders[0]!)];
  const results = await client.multicall({
    contracts: holders.map((holder) => ({ address: token, abi: TestToken.abi, functionName: 'balanceOf', args: [holder] }) as const),
    blockNumber,
    deployless: true,
    allowFailure: true,
    // viem cuts the calls into eth_calls by their calldata's bytes (36 a balanceOf).
    batchSize: 36 * BALANCES_PER_CALL,
  });
  const balances = results.map((result) => (result.status === 'success' ? (result.result as bigint) : undefined));
  const failed = balances.flatMap((balance, i) => (balance === undefined ? [i] : []));
  for (let i = 0; i < failed.length; i += ALONE_AT_ONCE) {
    const group = failed.slice(i, i + ALONE_AT_ONCE);
    const read = await Promise.all(group.map((index) => alone(holders[index]!)));
    group.forEach((index, k) => (balances[index] = read[k]));
  }
  return balances as bigint[];
}
