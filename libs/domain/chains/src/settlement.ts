import type { ChainList, ChainNetwork } from '@ramp/contracts';
import { CHAINS, EVM_NATIVE_ADDRESS } from './registry';

/**
 * The chains list of an environment: the registry's chains, where each chain the chain service runs for the environment
 * takes that network's chain id and token contracts (the test tokens on a test chain) and says `settlement: onchain`
 * with its confirmation depth (and its DEX: the platform's pools on a local chain, a third party's on a live one); every other chain says `simulated` (a sandbox
 * rail: its hashes are not on any chain). A local test chain (a node of the platform's, with a faucet) has no
 * `explorerUrl`: the registry's is the mainnet's explorer, where none of the node's hashes exist.
 */
export function chainsOf(networks: readonly ChainNetwork[]): ChainList.Response {
  return CHAINS.map((chain) => {
    const network = networks.find((candidate) => candidate.chain === chain.chain);
    if (!network) return { ...chain, tokens: chain.tokens.map((token) => ({ ...token })), settlement: 'simulated' as const };
    const { explorerUrl, tokens, ...identity } = chain;
    return {
      ...identity,
      chainId: network.chainId,
      ...(!network.faucet && { explorerUrl }),
      // Only what the network carries: a live chain withholds the tokens no primary source confirms (LIVE_CHAINS), and
      // lists none of them at an address it does not use.
      tokens: tokens
        .filter((token) => token.contractAddress === EVM_NATIVE_ADDRESS || network.contracts.tokens[token.symbol] !== undefined)
        .map((token) => ({
          ...token,
          contractAddress: token.contractAddress === EVM_NATIVE_ADDRESS ? token.contractAddress : network.contracts.tokens[token.symbol]!,
        })),
      settlement: 'onchain' as const,
      confirmations: network.confirmations,
      // A live chain's DEX once its wrapped native coin is known (on bsc, once the chain service asked the router).
      ...(network.contracts.dex &&
        network.contracts.wrappedNative.toLowerCase() !== EVM_NATIVE_ADDRESS.toLowerCase() && {
          dex: {
            name: network.contracts.dex.name,
            router: network.contracts.dex.router,
            factory: network.contracts.dex.factory,
            hub: network.contracts.dex.hub,
            wrappedNative: network.contracts.wrappedNative,
          },
        }),
      ...(network.contracts.bridge && { bridge: { name: network.contracts.bridge.name, pool: network.contracts.bridge.pool } }),
    };
  });
}
