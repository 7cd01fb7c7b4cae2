import { spawn, type ChildProcess } from 'child_process';
import { appendFileSync } from 'fs';
import { join } from 'path';
import { createServer } from 'net';
import { compiledMain, REGISTER_PATHS, WORKSPACE_ROOT } from './paths';

export type AppName = 'gateway' | 'quote' | 'ramp' | 'swap-transfer' | 'ledger' | 'notifier' | 'chain';

/** Ports this process has handed out: the kernel may offer a port again once its probe socket is closed. */
const handedOut = new Set<number>();

/**
 * A free TCP port on loopback, chosen by the kernel, never one this process has handed out before. The kernel frees
 * the probe's port at once and may offer it to the next probe: two services given one port would find the first to
 * listen answering the other's readiness probe (a CI run saw the quote service answer for the gateway).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await probePort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

function probePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * One of the platform's services, running as a real process built from this tree, so that a test can stop it,
 * `kill -9` it and start it again exactly as an operator or a crash would.
 */
export class ServiceProcess {
  private child: ChildProcess | undefined;
  private output = '';

  constructor(
    readonly app: AppName,
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Where its probes and metrics are: the gateway's OPS_PORT when the test sets one, its one port otherwise. */
  get opsUrl(): string {
    return this.env.OPS_PORT ? `http://127.0.0.1:${this.env.OPS_PORT}` : this.url;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the process ended, when it has ended by itself (a crash): undefined while it runs or once stopped by a test. */
  get ended(): string | undefined {
    const child = this.child;
    if (!child || (child.exitCode === null && child.signalCode === null)) return undefined;
    return child.signalCode ? `killed by ${child.signalCode}` : `exited with ${child.exitCode}`;
  }

  /** Recent stdout and stderr of the process, for failure messages. */
  get logs(): string {
    return this.output.slice(-4000);
  }

  /** The JSON log lines the process has written since it started (within the last megabyte of its output). */
  get logRecords(): Record<string, unknown>[] {
    return this.output.split('\n').flatMap((line) => {
      if (!line.startsWith('{')) return [];
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  }

  async start(): Promise<this> {
    const portVariable = this.app === 'gateway' ? 'PORT' : 'HEALTH_PORT';
    this.output = '';
    // SERVICE_CPU_PROFILE_DIR (npm run profile): each service writes a V8 CPU profile there, in a folder of its own, when it exits.
    const profileDir = process.env.SERVICE_CPU_PROFILE_DIR;
    const profiling = profileDir ? ['--cpu-prof', '--cpu-prof-dir', join(profileDir, this.app)] : [];
    const child = spawn(process.execPath, [...profiling, '-r', REGISTER_PATHS, compiledMain(this.app)], {
      cwd: WORKSPACE_ROOT,
      env: { ...process.env, NODE_ENV: 'development', ...this.env, [portVariable]: String(this.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    // TEST_SERVICE_LOG_DIR: every service's whole output in a file of its own, to read after a failed run.
    const file = process.env.TEST_SERVICE_LOG_DIR ? join(process.env.TEST_SERVICE_LOG_DIR, `${this.app}-${this.port}.log`) : undefined;
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-1_000_000);
      if (file) appendFileSync(file, chunk);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    await this.waitUntilReady(child);
    return this;
  }

  /** Graceful stop (SIGTERM), as Kubernetes does; resolves with the exit code (null when it was not running). */
  async stop(): Promise<number | null> {
    return this.signal('SIGTERM');
  }

  /** `kill -9`: no chance to clean up. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  private async signal(signal: NodeJS.Signals): Promise<number | null> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return null;
    const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
    child.kill(signal);
    const code = await exited;
    this.child = undefined;
    return code;
  }

  private async waitUntilReady(child: ChildProcess): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`${this.app} exited with ${child.exitCode} while starting:\n${this.logs}`);
      try {
        const response = await fetch(`${this.opsUrl}/health/ready`);
        if (response.status === 200) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
    throw new Error(`${this.app} was not ready within 30 s:\n${this.logs}`);
  }
}

/**
 * The services a service calls that a test need not list: the chain service, which the ledger asks for wallets'
 * deposit addresses, the quote service for the chains list and the pools, and swap-transfer and ramp for what they run
 * on chain.
 * startServices starts them first when they are missing.
 */
const CALLS: Partial<Record<AppName, AppName[]>> = { ledger: ['chain'], quote: ['chain'], 'swap-transfer': ['chain'], ramp: ['chain'] };

/** `apps` with the services they call before them, each once. */
export function withDependencies(apps: AppName[]): AppName[] {
  const ordered: AppName[] = [];
  for (const app of apps) for (const needed of [...(CALLS[app] ?? []), app]) if (!ordered.includes(needed)) ordered.push(needed);
  return ordered;
}

/**
 * Starts services (with the services they call: withDependencies) and returns them by name, in that order; stop them
 * all with stopAll. `env` is added to each one's environment, or is a function giving each its own (its NATS user).
 * The services they call start first, the rest together: none calls another to become ready, and a
 * suite's start is most of what a short suite costs.
 */
export async function startServices(
  apps: AppName[],
  env: Record<string, string> | ((app: AppName) => Record<string, string>) = {},
): Promise<Map<AppName, ServiceProcess>> {
  const ordered = withDependencies(apps);
  const called = new Set(Object.values(CALLS).flat());
  const services = new Map<AppName, ServiceProcess>();
  for (const app of ordered) services.set(app, new ServiceProcess(app, await freePort(), typeof env === 'function' ? env(app) : env));
  try {
    for (const app of ordered.filter((name) => called.has(name))) await services.get(app)!.start();
    await Promise.all(ordered.filter((name) => !called.has(name)).map((app) => services.get(app)!.start()));
  } catch (error) {
    // One that did not start leaves none running behind it.
    await stopAll(services.values());
    throw error;
  }
  return services;
}

export async function stopAll(services: Iterable<ServiceProcess>): Promise<void> {
  await Promise.all([...services].map((service) => service.stop()));
}
