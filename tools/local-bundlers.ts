import { spawn } from 'child_process';
import { mkdirSync, openSync } from 'fs';
import { join } from 'path';
import { Config } from '@ramp/config';
import { altoArguments, bundlerAnswers, CANONICAL_ENTRY_POINT, deployForLocalBundler, resolveChains } from '@ramp/evm';
import { WORKSPACE_ROOT } from '@ramp/testing';

/**
 * `node tools/run.js tools/local-bundlers`: a local ERC-4337 bundler (@pimlico/alto, from its npm package) beside each
 * local test chain of TEST_CHAINS that names a `localBundlerPort` and has none answering there yet (scripts/lib.sh,
 * ensure_chains). Alto refuses to start before its EntryPoint exists, so EntryPoint v0.7 and its factory are deployed
 * first (at their canonical addresses, by the bundler's own utility account). Each bundler runs on, detached, logging
 * to .local/chains/<chain>-bundler.log, like the anvil nodes.
 */
async function main(): Promise<void> {
  const chains = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS');
  const logs = join(WORKSPACE_ROOT, '.local/chains');
  mkdirSync(logs, { recursive: true });
  for (const chain of chains) {
    if (chain.localBundlerPort === undefined || chain.bundlerUrl === undefined) continue;
    if (await bundlerAnswers(chain.bundlerUrl, CANONICAL_ENTRY_POINT)) continue;
    await deployForLocalBundler(chain.rpcUrl).catch((error: unknown) => {
      throw new Error(`deploying EntryPoint v0.7 on the local ${chain.chain} chain (${chain.rpcUrl}) for its bundler failed: ${String(error)}`);
    });
    process.stderr.write(`starting the local ${chain.chain} bundler (alto) on 127.0.0.1:${chain.localBundlerPort}\n`);
    const log = openSync(join(logs, `${chain.chain}-bundler.log`), 'a');
    const child = spawn(process.execPath, altoArguments({ rpcUrl: chain.rpcUrl, entryPoint: CANONICAL_ENTRY_POINT, port: chain.localBundlerPort }), {
      detached: true,
      stdio: ['ignore', log, log],
    });
    child.unref();
    const deadline = Date.now() + 60_000;
    while (!(await bundlerAnswers(chain.bundlerUrl, CANONICAL_ENTRY_POINT))) {
      if (child.exitCode !== null) throw new Error(`the ${chain.chain} bundler exited with ${child.exitCode}: see .local/chains/${chain.chain}-bundler.log`);
      if (Date.now() > deadline) {
        // Not left behind holding the port: the next run starts a new one.
        process.kill(-child.pid!, 'SIGKILL');
        throw new Error(`the ${chain.chain} bundler did not answer on ${chain.bundlerUrl} within 60 s: see .local/chains/${chain.chain}-bundler.log`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
