import { spawn, type ChildProcess } from 'child_process';
import { dirname, join } from 'path';
import { createPublicClient, createWalletClient, http, toHex, type Address, type Hex, type PublicClient } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { LOCAL_CHAIN_ACCOUNTS } from './chain-settings';
import { deployEntryPointAndFactory } from './smart-accounts';

/**
 * A local test chain's ERC-4337 bundler: the pinned npm package @pimlico/alto, run by `npm start` and `npm test`
 * (tools/local-bundlers.ts), by tests and benchmarks (AltoBundler, below) and by docker-compose.yml's bundler
 * containers (the chain app's `cli/local-bundler`). Nothing is downloaded at run time.
 */
export const ALTO_CLI = join(dirname(require.resolve('@pimlico/alto')), 'cli/alto.js');

/**
 * The bundler's own keys on a local chain: anvil's prefunded development accounts 8 (executor: signs and pays for the
 * bundles) and 9 (utility: deploys alto's simulation contracts). Never custody keys; they hold nothing of value.
 */
export const LOCAL_BUNDLER_KEYS = Object.freeze({ executorIndex: 8, utilityIndex: 9 });

const devKey = (addressIndex: number): Hex => toHex(mnemonicToAccount(LOCAL_CHAIN_ACCOUNTS.mnemonic, { addressIndex }).getHdKey().privateKey!);

export interface BundlerOptions {
  rpcUrl: string;
  entryPoint: Address;
  port?: number;
}

/** The local bundler's command line (after `node`): alto on `port` for `entryPoint` on the node at `rpcUrl`. */
export function altoArguments(options: Required<BundlerOptions>): string[] {
  return [
    ALTO_CLI,
    // The port first: the scripts find a chain's bundler by it (`alto.js --port <port> `).
    ...['--port', String(options.port)],
    ...['--entrypoints', options.entryPoint],
    ...['--executor-private-keys', devKey(LOCAL_BUNDLER_KEYS.executorIndex)],
    ...['--utility-private-key', devKey(LOCAL_BUNDLER_KEYS.utilityIndex)],
    ...['--rpc-url', options.rpcUrl],
    // Safe mode (ERC-7562's tracing rules) needs a JavaScript tracer anvil does not have; the platform is the only
    // sender to its own bundler. The call gas estimate gets half again: at alto's default a batched swap ran out.
    ...['--safe-mode', 'false', '--log-level', 'warn', '--v7-call-gas-limit-multiplier', '150'],
    ...['--deploy-simulations-contract', 'true', '--utility-wallet-monitor', 'false', '--refilling-wallets', 'false'],
  ];
}

/**
 * EntryPoint v0.7 and its account factory at their canonical addresses on a local chain, deployed by the bundler's
 * utility account when they are not there yet: alto refuses to start before its EntryPoint exists.
 */
export async function deployForLocalBundler(rpcUrl: string): Promise<void> {
  const client = createPublicClient({ transport: http(rpcUrl) }) as PublicClient;
  const utility = mnemonicToAccount(LOCAL_CHAIN_ACCOUNTS.mnemonic, { addressIndex: LOCAL_BUNDLER_KEYS.utilityIndex });
  await deployEntryPointAndFactory(client, createWalletClient({ account: utility, transport: http(rpcUrl) }));
}

/** Whether the bundler at `url` answers, serving `entryPoint` (`eth_supportedEntryPoints`). */
export async function bundlerAnswers(url: string, entryPoint: Address): Promise<boolean> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_supportedEntryPoints', params: [] }),
    });
    const body = (await response.json()) as { result?: string[] };
    return (body.result ?? []).some((address) => address.toLowerCase() === entryPoint.toLowerCase());
  } catch {
    return false;
  }
}

/**
 * A real ERC-4337 bundler (@pimlico/alto) as a process beside a local anvil node, on `port` (the caller's free port),
 * so that a test or a benchmark can send UserOperations through the standard JSON-RPC and kill it (`kill -9`)
 * mid-operation. Safe mode (ERC-7562's tracing rules) is off: anvil has no JavaScript tracer; the platform is the only
 * sender to its own bundler.
 */
export class AltoBundler {
  private child: ChildProcess | undefined;
  private output = '';

  constructor(private readonly options: Required<BundlerOptions>) {}

  get port(): number {
    return this.options.port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.options.port}`;
  }

  get logs(): string {
    return this.output.slice(-4000);
  }

  async start(): Promise<this> {
    this.output = '';
    const child = spawn(process.execPath, altoArguments(this.options), { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-100_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`alto exited with ${child.exitCode}:\n${this.logs}`);
      if (await bundlerAnswers(this.url, this.options.entryPoint)) return this;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`alto did not answer on ${this.url}:\n${this.logs}`);
  }

  /** Ends the bundler: SIGKILL (a crash: its mempool is lost) or SIGTERM. The same port is used again by start(). */
  async stop(signal: 'SIGKILL' | 'SIGTERM' = 'SIGTERM'): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
}
