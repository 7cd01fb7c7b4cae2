import { spawn, type ChildProcess } from 'child_process';
import { altoArguments, bundlerAnswers, type BundlerOptions } from '@ramp/evm';
import { freePort } from './services';

export { ALTO_CLI, altoArguments, bundlerAnswers, LOCAL_BUNDLER_KEYS, type BundlerOptions } from '@ramp/evm';

/**
 * A real ERC-4337 bundler (@pimlico/alto) as a process beside a local anvil node, so a test can send UserOperations
 * through the standard JSON-RPC and kill it (`kill -9`) mid-operation. Safe mode (ERC-7562's tracing rules) is off:
 * anvil has no JavaScript tracer; the platform is the only sender to its own bundler.
 */
export class AltoBundler {
  private child: ChildProcess | undefined;
  private output = '';
  port = 0;

  constructor(private readonly options: BundlerOptions) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get logs(): string {
    return this.output.slice(-4000);
  }

  async start(): Promise<this> {
    this.port = this.port || this.options.port || (await freePort());
    const args = altoArguments({ ...this.options, port: this.port });
    this.output = '';
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
