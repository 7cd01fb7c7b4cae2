import { spawn, type ChildProcess } from 'child_process';
import { resolve } from 'path';
import { freePort } from '../services';
import { WORKSPACE_ROOT } from '../paths';

/** A partner's published contract in the repository (partners/README.md). */
export const PARTNER_CONTRACTS = { paystack: resolve(WORKSPACE_ROOT, 'partners/paystack.yaml') } as const;

/**
 * `prism proxy <contract> <upstream> --errors` (Stoplight Prism, from the registry package): every request is checked
 * against the partner's published contract before it reaches the upstream (an emulator), and every answer after; a
 * violation either way is answered as an error (422 for a request, 500 for an answer) and logged, so an adapter or an
 * emulator that strays from the contract fails the test that exercised it.
 */
export class PrismProxy {
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-2_000_000)));
    child.stderr?.on('data', (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-2_000_000)));
  }

  static async start(contract: string, upstream: string): Promise<PrismProxy> {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        resolve(WORKSPACE_ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js'),
        'proxy',
        contract,
        upstream,
        '--errors',
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
      ],
      { cwd: WORKSPACE_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const proxy = new PrismProxy(child, `http://127.0.0.1:${port}`);
    const deadline = Date.now() + 60_000;
    while (!proxy.output.includes('Prism is listening')) {
      if (child.exitCode !== null) throw new Error(`prism exited with ${child.exitCode}:\n${proxy.output.slice(-4000)}`);
      if (Date.now() > deadline) throw new Error(`prism did not listen within 60 s:\n${proxy.output.slice(-4000)}`);
      await new Promise((wait) => setTimeout(wait, 100));
    }
    return proxy;
  }

  /** What Prism found wrong since it started: each request or answer that broke the contract, as it logged them. */
  get violations(): string[] {
    return this.output.split('\n').filter((line) => /VIOLATIONS|UNPROCESSABLE_ENTITY|NO_PATH_MATCHED|NO_METHOD_MATCHED|UNAUTHORIZED/.test(line));
  }

  get logs(): string {
    return this.output.slice(-8000);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((done) => this.child.once('exit', done));
    this.child.kill('SIGTERM');
    await exited;
  }
}
