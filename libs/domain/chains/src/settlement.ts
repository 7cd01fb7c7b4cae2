import type { ChainList, ChainNetwork } from '@ramp/contracts';
import { CHAINS, EVM_NATIVE_ADDRESS } from './registry';

/**
 * The chains list of an environment: the registry's chains, where each chain the chain service runs for the environment
 * takes that network's chain id and token contracts (the test tokens on a test chain) and says `settlement: onchain`
 * with its confirmation depth (and its DEX, where the platform has pools); every other chain says `simulated` (a sandbox
 * rail: its hashes are not on any chain).
 */
export function chainsOf(networks: readonly ChainNetwork[]): ChainList.Response {
  return CHAINS.map((chain) => {
    const network = networks.find((candidate) => candidate.chain === chain.chain);
    if (!network) return { ...chain, tokens: chain.tokens.map((token) => ({ ...token })), settlement: 'simulated' as const };
    return {
      ...chain,
      chainId: network.chainId,
      settlement: 'onchain' as const,
      confirmations: network.confirmations,
      ...(network.contracts.dex && {
        dex: { name: network.contracts.dex.name, router: network.contracts.dex.router, factory: network.contracts.dex.factory, hub: network.contracts.dex.hub, wrappedNative: network.contracts.wrappedNative },
      }),
      ...(network.contracts.bridge && { bridge: { name: network.contracts.bridge.name, pool: network.contracts.bridge.pool } }),
      tokens: chain.tokens.map((token) => ({
        ...token,
        contractAddress: token.contractAddress === EVM_NATIVE_ADDRESS ? token.contractAddress : (network.contracts.tokens[token.symbol] ?? token.contractAddress),
      })),
    };
  });
}
