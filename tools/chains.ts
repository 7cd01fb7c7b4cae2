import { Config } from '@ramp/config';
import { resolveChains } from '@ramp/evm';

/**
 * `node tools/run.js tools/chains`: the local test chains of TEST_CHAINS, one per line as
 * `<chain> <port> <chain id> <bundler port or ->`, for the scripts that start their anvil nodes and bundlers
 * (scripts/lib.sh, ensure_chains).
 */
const config = new Config();
const chains = resolveChains('test', config.json('testChains'), 'TEST_CHAINS');
for (const chain of chains)
  if (chain.localPort !== undefined) process.stdout.write(`${chain.chain} ${chain.localPort} ${chain.chainId} ${chain.localBundlerPort ?? '-'}\n`);
