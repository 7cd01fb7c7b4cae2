import { spawn, type ChildProcess } from 'child_process';
import { join } from 'path';
import { WORKSPACE_ROOT } from './paths';
import { freePort } from './services';

/** The anvil binary of the pinned npm package @foundry-rs/anvil-linux-amd64: nothing is downloaded at run time. */
export const ANVIL_BINARY = join(WORKSPACE_ROOT, 'node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil');

/** Anvil's well-known development mnemonic: its first account is a test chain's faucet. Never holds real money. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

export interface AnvilOptions {
  chainId: number;
  /** Seconds per block; absent: a block per transaction (automine). */
  blockTime?: number;
  port?: number;
  /** anvil's --state: loaded at start when it exists, written at exit. */
  statePath?: string;
}

/**
 * A local EVM node (anvil) as a real process, so a test can stop it and start it again (an RPC outage), reorganise
 * it (`anvil_reorg`), or pause mining.
 */
export class AnvilNode {
  private child: ChildProcess | undefined;
  private output = '';
  port = 0;

  constructor(private readonly options: AnvilOptions) {}

  get rpcUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get logs(): string {
    return this.output.slice(-4000);
  }

  async start(): Promise<this> {
    this.port = this.port || this.options.port || (await freePort());
    const args = ['--host', '127.0.0.1', '--port', String(this.port), '--chain-id', String(this.options.chainId), '--mnemonic', ANVIL_MNEMONIC];
    if (this.options.blockTime !== undefined) args.push('--block-time', String(this.options.blockTime));
    if (this.options.statePath) args.push('--state', this.options.statePath);
    this.output = '';
    const child = spawn(ANVIL_BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-100_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`anvil exited with ${child.exitCode}:\n${this.logs}`);
      if (await this.answers()) return this;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`anvil did not answer on ${this.rpcUrl}:\n${this.logs}`);
  }

  /** One JSON-RPC call to the node. */
  async rpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const response = await fetch(this.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  }

  private async answers(): Promise<boolean> {
    try {
      await this.rpc('eth_chainId');
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Replaces every block from the one holding transaction `hash` up to the head with empty ones (`anvil_reorg`): what
   * they held never happened. The platform mines sends meanwhile, so a head read a moment before can be behind the
   * reorganisation and its depth fall short of the block: it is taken again, deeper, until the block is gone.
   */
  async reorgOut(hash: string): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const receipt = await this.rpc<{ blockNumber: string } | null>('eth_getTransactionReceipt', [hash]);
      if (!receipt) return;
      const head = BigInt(await this.rpc<string>('eth_blockNumber'));
      await this.rpc('anvil_reorg', [Number(head - BigInt(receipt.blockNumber)) + 1, []]);
    }
    if (await this.rpc('eth_getTransactionReceipt', [hash])) throw new Error(`${hash} is still on the chain after five reorganisations`);
  }

  /** Stops the node (SIGTERM, so --state is written); the same port is used again by start(). */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}
