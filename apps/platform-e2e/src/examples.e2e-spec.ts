import { execFile, spawn, type ChildProcess } from 'child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { request } from 'https';
import { tmpdir } from 'os';
import { join } from 'path';
import { promisify } from 'util';
import { ApiClient, eventually, freePort, keysCommand, makeTestCertificates, startServices, stopAll, WORKSPACE_ROOT, type ServiceProcess } from '@ramp/testing';

const SOURCE = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
/** The README's off-ramp: 100 USDC on base, paid to NGOZI OKONKWO at Guaranty Trust Bank. */
const OFFRAMP_QUOTE = { amount: '100', tokenSymbol: 'USDC', bankCode: '058', accountNumber: '0123456785', chain: 'base' };

/** One of the examples running as a process of its own, as a reader of the README starts it, with what it printed. */
class ExampleScript {
  readonly lines: string[] = [];
  private readonly child: ChildProcess;
  private errors = '';
  readonly exited: Promise<number | null>;

  constructor(script: string, cwd: string, env: Record<string, string>) {
    this.child = spawn(process.execPath, [join(WORKSPACE_ROOT, 'examples', script)], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let partial = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      const text = partial + chunk.toString('utf8');
      const complete = text.split('\n');
      partial = complete.pop()!;
      this.lines.push(...complete);
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.errors += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** What it printed, for failure messages. */
  get output(): string {
    return `stdout:\n${this.lines.join('\n')}\nstderr:\n${this.errors}`;
  }

  async line(matching: RegExp, ms = 30_000): Promise<RegExpExecArray> {
    const found = () => this.lines.map((line) => matching.exec(line)).find((match) => match !== null);
    await eventually(
      async () => found(),
      (match) => match !== undefined,
      ms,
      50,
    ).catch(() => undefined);
    const match = found();
    if (!match) throw new Error(`no line matching ${matching} within ${ms} ms\n${this.output}`);
    return match;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }
}

describe("examples - the README's receiver and SDK scripts, run against the platform as its Getting started runs them", () => {
  const certificates = makeTestCertificates();
  /** Stands for the checkout's root: the scripts read the webhook certificate from tmp/ there, as the README made it. */
  const root = mkdtempSync(join(tmpdir(), 'ramp-examples-'));
  let services: Map<string, ServiceProcess>;
  let apiUrl: string;
  let api: ApiClient;
  let key: string;

  beforeAll(async () => {
    mkdirSync(join(root, 'tmp'));
    writeFileSync(join(root, 'tmp/hook-key.pem'), certificates.key);
    writeFileSync(join(root, 'tmp/hook-cert.pem'), certificates.cert);
    // `npm run sdk:build`: examples/offramp-sdk.js requires the SDK built from this checkout.
    await promisify(execFile)(process.execPath, [join(WORKSPACE_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'libs/sdk/tsconfig.lib.json'], {
      cwd: WORKSPACE_ROOT,
    });
    services = await startServices(['quote', 'ledger', 'ramp', 'notifier', 'gateway'], {
      WEBHOOK_ALLOW_HOSTS: 'localhost',
      WEBHOOK_CA_FILE: certificates.caFile,
    });
    apiUrl = `${services.get('gateway')!.url}/v1`;
    // `npm run keys -- create`, then the `export KEY=…` line it prints pasted into the shell.
    const created = await keysCommand(['create', '--org', `Examples ${Date.now()}`, '--env', 'test']);
    expect(created.code).toBe(0);
    key = /^export KEY=(\S+)$/m.exec(created.stderr)![1]!;
    expect(key).toBe(JSON.parse(created.stdout).apiKey);
    api = new ApiClient(apiUrl, key);
  }, 120_000);

  afterAll(async () => {
    await stopAll(services.values());
    rmSync(root, { recursive: true, force: true });
  });

  it('examples/receiver.js verifies the signed offramp.completed of the off-ramp run with curl, and refuses a forged one', async () => {
    const port = await freePort();
    const hook = await api.post('/webhooks', { url: `https://localhost:${port}/hooks/ramp`, events: ['offramp.completed', 'offramp.failed'] });
    expect(hook.status).toBe(201);
    const receiver = new ExampleScript('receiver.js', root, { WEBHOOK_SECRET: hook.body.data.secret, RECEIVER_PORT: String(port) });
    try {
      await receiver.line(new RegExp(`^receiving on https://localhost:${port}$`));

      const quote = await api.post('/offramp/quote', OFFRAMP_QUOTE);
      expect(quote.status).toBe(200);
      const started = await api.post('/offramp/initiate', { quoteId: quote.body.data.quoteId, sourceAddress: SOURCE, reference: 'payout-1' });
      expect(started.status).toBe(201);
      const transactionId = started.body.data.transactionId as string;
      // As the README's curl sends it: no body, no content type.
      expect((await api.raw('POST', `/sandbox/offramp/${transactionId}/deposit`, undefined, {})).status).toBe(200);
      const done = await eventually(
        () => api.get(`/offramp/${transactionId}`),
        (response) => ['completed', 'failed'].includes(response.body.data.status),
        60_000,
        500,
      );
      expect(done.body.data.status).toBe('completed');

      const [, body] = await receiver.line(new RegExp(`^verified (\\{.*"transactionId":"${transactionId}".*\\})$`));
      expect(JSON.parse(body!)).toMatchObject({
        event: 'offramp.completed',
        data: { transactionId, reference: 'payout-1', status: 'completed', fiatCurrency: 'NGN', payoutAmount: quote.body.data.payoutAmount },
      });

      // A delivery signed with another secret is refused: 400, and the receiver says so.
      const forged = JSON.stringify({ event: 'offramp.completed', data: { transactionId: 'txn_forged' } });
      expect(await postTo(port, forged, '0'.repeat(64), certificates.caFile)).toBe(400);
      await receiver.line(/^REFUSED: bad signature .*txn_forged/);
    } finally {
      await receiver.stop();
      await api.delete(`/webhooks/${hook.body.data.id}`);
    }
  }, 120_000);

  it('examples/offramp-sdk.js runs the off-ramp with the SDK to its verified offramp.completed webhook, and deletes its webhook', async () => {
    const sdk = new ExampleScript('offramp-sdk.js', root, { KEY: key, API: apiUrl, RECEIVER_PORT: String(await freePort()) });
    const code = await sdk.exited;
    expect({ code, output: sdk.output }).toEqual({ code: 0, output: expect.any(String) });

    const [, quoted] = await sdk.line(/^quote qt_\w+ NGOZI OKONKWO receives (\d+\.\d{2}) NGN$/, 0);
    const [, transactionId] = await sdk.line(/^initiated (txn_\w+) pending send the USDC to 0x[0-9a-fA-F]{40}$/, 0);
    const [, paid] = await sdk.line(/^completed (\d+\.\d{2}) NGN to NGOZI OKONKWO$/, 0);
    await sdk.line(new RegExp(`^verified webhook offramp.completed ${transactionId}$`), 0);
    expect(paid).toBe(quoted);

    // The platform agrees: the off-ramp completed as quoted, and the script left no webhook behind.
    const transaction = await api.get(`/offramp/${transactionId}`);
    expect(transaction.body.data).toMatchObject({ status: 'completed', reference: 'payout-2' });
    expect(transaction.body.data.ramp.payoutAmount).toBe(quoted);
    expect((await api.get('/webhooks')).body.data).toEqual([]);
  }, 120_000);
});

/** POSTs a delivery to the receiver over HTTPS, as the platform would, trusting the test CA; resolves with the status. */
function postTo(port: number, body: string, signature: string, caFile: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: '127.0.0.1',
        servername: 'localhost',
        port,
        path: '/hooks/ramp',
        method: 'POST',
        ca: readFileSync(caFile),
        headers: { 'content-type': 'application/json', 'x-service-signature': signature },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}
