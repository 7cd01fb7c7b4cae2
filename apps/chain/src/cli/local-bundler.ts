import { spawn } from 'child_process';
import { altoArguments, CANONICAL_ENTRY_POINT, deployForLocalBundler } from '@ramp/evm';

/** How long the node may take to answer before the bundler gives up (a container is restarted by Compose). */
const NODE_WAIT_MS = 120_000;

/**
 * A local test chain's ERC-4337 bundler in a container of its own (docker-compose.yml's `bundler-base` and
 * `bundler-bsc`, from the chain service's image): waits for the node at RPC_URL, deploys EntryPoint v0.7 and its
 * factory there when they are missing (alto refuses to start without its EntryPoint), then runs @pimlico/alto on
 * BUNDLER_PORT (4337) as `npm start` does beside its anvil nodes (tools/local-bundlers.ts), and ends with it. For local
 * test chains only: its keys are anvil's development accounts. A live chain uses a bundler provider's endpoint.
 */
async function main(): Promise<void> {
  const rpcUrl = process.env.RPC_URL;
  if (!rpcUrl) throw new Error('set RPC_URL: the local chain the bundler sends to');
  const port = Number(process.env.BUNDLER_PORT ?? '4337');
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`BUNDLER_PORT must be a port, got ${process.env.BUNDLER_PORT}`);
  const deadline = Date.now() + NODE_WAIT_MS;
  for (;;) {
    try {
      await deployForLocalBundler(rpcUrl);
      break;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`the node at ${rpcUrl} did not take EntryPoint v0.7 within ${NODE_WAIT_MS / 1000} s: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  const alto = spawn(process.execPath, altoArguments({ rpcUrl, entryPoint: CANONICAL_ENTRY_POINT, port }), { stdio: 'inherit' });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => alto.kill(signal));
  alto.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

main().catch((error: unknown) => {
  process.stderr.write(`local-bundler: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
