import { spawn, type ChildProcess } from 'child_process';
import { randomBytes } from 'crypto';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { connect } from 'nats';
import { NATS_SERVICE_USERS, natsServerAuthorization, OPERATOR_USER, passwordVariableOf } from '@ramp/messaging';
import { freePort } from './services';

/** The nats-server of the machine (Debian's package): the tests' brokers are the real server, not a stand-in. */
const NATS_SERVER = process.env.NATS_SERVER_BIN ?? 'nats-server';

interface Node {
  name: string;
  clientPort: number;
  routePort: number;
  storeDir: string;
  process?: ChildProcess;
  output: string;
}

/**
 * A JetStream cluster of nats-server processes on loopback ports of their own (three by default, like production),
 * with the platform's authorization (deploy/nats/authorization.conf, generated for the run's EVENTS_NAMESPACE): one
 * user per service, with a random password each, and the operator's. Servers can be killed (`kill -9`), stopped and
 * started again with their storage, as a node failure or a rolling restart would.
 */
export class NatsCluster {
  private readonly dir = mkdtempSync(join(tmpdir(), 'nats-cluster-'));
  private readonly nodes: Node[] = [];
  /**
   * The password of each user, as the servers read it from their environment and a service gets in NATS_PASSWORD. A
   * letter first: nats-server parses the variable as a configuration value, and `2f…` would be a number.
   */
  readonly passwords: Record<string, string> = Object.fromEntries(
    [...NATS_SERVICE_USERS, OPERATOR_USER].map((user) => [user, `p${randomBytes(12).toString('hex')}`]),
  );

  constructor(private readonly size = 3) {}

  /** NATS_URL for a client: every server, comma separated. */
  get url(): string {
    return this.nodes.map((node) => `nats://127.0.0.1:${node.clientPort}`).join(',');
  }

  /** The environment a service connects with: the cluster, its own user and password. */
  envFor(user: string): Record<string, string> {
    return { NATS_URL: this.url, NATS_USER: user, NATS_PASSWORD: this.passwords[user]! };
  }

  async start(namespace = process.env.EVENTS_NAMESPACE ?? ''): Promise<this> {
    writeFileSync(join(this.dir, 'authorization.conf'), natsServerAuthorization(namespace));
    for (let i = 1; i <= this.size; i++) {
      this.nodes.push({ name: `n${i}`, clientPort: await freePort(), routePort: await freePort(), storeDir: join(this.dir, `n${i}`), output: '' });
    }
    for (const node of this.nodes) {
      const routes = this.nodes.filter((other) => other !== node).map((other) => `nats-route://127.0.0.1:${other.routePort}`);
      writeFileSync(
        join(this.dir, `${node.name}.conf`),
        [
          `server_name: ${node.name}`,
          `listen: 127.0.0.1:${node.clientPort}`,
          `jetstream { store_dir: ${JSON.stringify(node.storeDir)}, max_memory_store: 64MB, max_file_store: 1GB }`,
          `cluster { name: ramp-test, listen: 127.0.0.1:${node.routePort}, routes: [${routes.join(', ')}] }`,
          'include ./authorization.conf',
          '',
        ].join('\n'),
      );
    }
    for (const node of this.nodes) this.spawn(node);
    await this.waitForJetStream();
    return this;
  }

  /** `kill -9` of server `index` (0-based): no goodbye to the others. */
  async kill(index: number): Promise<void> {
    await this.signal(this.nodes[index]!, 'SIGKILL');
  }

  /** A graceful stop (SIGTERM), as a rolling restart does. */
  async stop(index: number): Promise<void> {
    await this.signal(this.nodes[index]!, 'SIGTERM');
  }

  /** Starts server `index` again on its ports and storage, and waits until the cluster has JetStream again. */
  async restart(index: number): Promise<void> {
    this.spawn(this.nodes[index]!);
    await this.waitForJetStream();
  }

  /**
   * The permission violations the servers have logged (`Publish Violation - User "ramp", Subject "…"`), by server, in
   * the order of its log (the last 200 kB of it); with `since` (an earlier answer), only those logged after it.
   */
  violations(since?: string[][]): string[][] {
    return this.nodes.map((node, i) =>
      node.output
        .split('\n')
        .filter((line) => / Violation - User /.test(line))
        .map((line) => line.replace(/^.*?\[ERR\] /, ''))
        .slice(since?.[i]?.length ?? 0),
    );
  }

  /** Recent output of the servers, for failure messages. */
  get logs(): string {
    return this.nodes.map((node) => `--- ${node.name}\n${node.output.slice(-3000)}`).join('\n');
  }

  async close(): Promise<void> {
    await Promise.all(this.nodes.map((node) => this.signal(node, 'SIGKILL')));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private spawn(node: Node): void {
    const env = { ...process.env, ...Object.fromEntries(Object.entries(this.passwords).map(([user, password]) => [passwordVariableOf(user), password])) };
    const child = spawn(NATS_SERVER, ['-c', join(this.dir, `${node.name}.conf`)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    // TEST_SERVICE_LOG_DIR: every server's whole output in a file of its own, as for the services.
    const file = process.env.TEST_SERVICE_LOG_DIR ? join(process.env.TEST_SERVICE_LOG_DIR, `nats-${node.name}-${node.clientPort}.log`) : undefined;
    const keep = (chunk: Buffer) => {
      node.output = (node.output + chunk.toString()).slice(-200_000);
      if (file) appendFileSync(file, chunk);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    node.process = child;
  }

  private async signal(node: Node, signal: NodeJS.Signals): Promise<void> {
    const child = node.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
    child.kill(signal);
    await exited;
    node.process = undefined;
  }

  /** Until a JetStream request is answered through every running server (the cluster has a meta leader). */
  private async waitForJetStream(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const node of this.nodes.filter((candidate) => candidate.process)) {
      for (;;) {
        try {
          const nc = await connect({ servers: `127.0.0.1:${node.clientPort}`, user: OPERATOR_USER, pass: this.passwords[OPERATOR_USER], timeout: 1000 });
          try {
            await (await nc.jetstreamManager()).getAccountInfo();
            break;
          } finally {
            await nc.close();
          }
        } catch (error) {
          if (Date.now() > deadline) throw new Error(`NATS server ${node.name} has no JetStream after ${timeoutMs} ms (${String(error)}):\n${this.logs}`);
          await new Promise((resolveWait) => setTimeout(resolveWait, 250));
        }
      }
    }
  }
}
