import { execFile } from 'child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join, relative, resolve } from 'path';
import { promisify } from 'util';
import { createKey, startServices, stopAll, WORKSPACE_ROOT, type ServiceProcess } from '@ramp/testing';
import { SANDBOX_BANK_ACCOUNTS } from './sandbox';

const SDK_DIR = resolve(__dirname, '..');
const PACKAGE_NAME = '@ramp-platform/sdk';

/** The files a consumer needs: each module of src/ compiled with its declarations (tests excluded), README, package.json. */
function expectedPackageFiles(): string[] {
  const modules = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return modules(path);
      return entry.name.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(entry.name)
        ? [relative(join(SDK_DIR, 'src'), path).replace(/\.ts$/, '')]
        : [];
    });
  return ['README.md', 'package.json', ...modules(join(SDK_DIR, 'src')).flatMap((module) => [`dist/${module}.js`, `dist/${module}.d.ts`])].sort();
}

/** What a consumer's backend does with the installed package, in plain JavaScript (CommonJS). */
const CONSUMER_JS = `
const assert = require('assert');
const crypto = require('crypto');
const { RampClient, RampError, SANDBOX_BANK_ACCOUNTS, SDK_VERSION, constructWebhookEvent, verifyWebhookSignature } = require('${PACKAGE_NAME}');

const ramp = new RampClient({ apiKey: 'service_test_consumer', baseUrl: 'http://127.0.0.1:3000/v1' });
assert.strictEqual(typeof ramp.offramp.quote, 'function');
assert.throws(() => new RampClient({ baseUrl: 'http://127.0.0.1:3000/v1' }), /apiKey is required/);

const secret = 'whsec_' + crypto.randomBytes(32).toString('base64');
const body = JSON.stringify({ event: 'offramp.completed', timestamp: new Date().toISOString(), data: { transactionId: 'txn_1', status: 'completed', metadata: { eventId: 'evt_1' } } });
const signature = crypto.createHmac('sha256', secret).update(body).digest('hex');
assert.strictEqual(verifyWebhookSignature(Buffer.from(body), signature, secret), true);
assert.strictEqual(verifyWebhookSignature(body.replace('completed', 'failed'), signature, secret), false);
assert.strictEqual(verifyWebhookSignature(body, signature, 'whsec_another'), false);
assert.strictEqual(verifyWebhookSignature(body, undefined, secret), false);
assert.strictEqual(constructWebhookEvent(body, signature, secret).data.metadata.eventId, 'evt_1');

assert.strictEqual(SDK_VERSION, require('${PACKAGE_NAME}/package.json').version);
assert.ok(SANDBOX_BANK_ACCOUNTS.length > 0 && Object.isFrozen(SANDBOX_BANK_ACCOUNTS));
assert.strictEqual(typeof RampError, 'function');
// Only the entry point is public: internal files can move between versions.
assert.throws(() => require('${PACKAGE_NAME}/dist/client'), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
console.log('consumer.js ok');
`;

/** The same from an ES module: Node must find the named exports of the CommonJS build. */
const CONSUMER_MJS = `
import assert from 'node:assert';
import { RampClient, verifyWebhookSignature, SANDBOX_BANK_ACCOUNTS } from '${PACKAGE_NAME}';
assert.strictEqual(typeof RampClient, 'function');
assert.strictEqual(typeof verifyWebhookSignature, 'function');
assert.ok(Array.isArray(SANDBOX_BANK_ACCOUNTS));
console.log('consumer.mjs ok');
`;

/**
 * A strict TypeScript consumer. Each \`@ts-expect-error\` must meet an error, so typings that were missing (TS7016) or
 * \`any\` (the directive unused, TS2578) fail the compilation as surely as wrong ones.
 */
const CONSUMER_TS = `
import {
  AuthenticationError,
  InvalidRequestError,
  NotFoundError,
  RampClient,
  RampError,
  RateLimitError,
  SANDBOX_BANK_ACCOUNTS,
  verifyWebhookSignature,
  type OfframpQuote,
  type OfframpQuoteRequest,
  type Page,
  type RampErrorCode,
  type SandboxBankAccount,
  type Transaction,
  type WebhookEvent,
} from '${PACKAGE_NAME}';

const ramp = new RampClient({ apiKey: 'service_test_consumer', baseUrl: 'http://127.0.0.1:3000/v1' });
// @ts-expect-error the API key is required
new RampClient({ baseUrl: 'http://127.0.0.1:3000/v1' });

const request: OfframpQuoteRequest = { amount: '100', tokenSymbol: 'USDC', chain: 'base', bankCode: '058', accountNumber: '0123456785' };
// @ts-expect-error amounts are decimal strings
const numericAmount: OfframpQuoteRequest = { ...request, amount: 100 };

export async function payout(): Promise<string> {
  const quote: OfframpQuote = await ramp.offramp.quote(request);
  // @ts-expect-error the payout amount is a decimal string
  const payoutNumber: number = quote.payoutAmount;
  const page: Page<Transaction> = await ramp.transactions.list({ type: 'offramp', status: 'completed' });
  // @ts-expect-error the first item of a page may be missing (noUncheckedIndexedAccess)
  const first: Transaction = page.data[0];
  // @ts-expect-error a status the API does not have
  await ramp.transactions.list({ status: 'done' });
  void [numericAmount, payoutNumber, first];
  return quote.bankAccount.accountName;
}

export function receive(rawBody: Buffer, signature: string | string[] | undefined, secret: string): string | undefined {
  if (!verifyWebhookSignature(rawBody, signature, secret)) return undefined;
  const event = JSON.parse(rawBody.toString('utf8')) as WebhookEvent;
  const eventId: string = event.data.metadata.eventId;
  // @ts-expect-error the event id is a string
  const numericId: number = event.data.metadata.eventId;
  // @ts-expect-error event names are the API's
  const name: 'offramp.started' = event.event;
  void [numericId, name];
  return \`\${event.event} \${event.data.transactionId} \${eventId}\`;
}

export function explain(error: unknown): string {
  if (error instanceof InvalidRequestError) return \`\${error.field ?? 'request'}: \${error.message}\`;
  if (error instanceof AuthenticationError || error instanceof NotFoundError || error instanceof RateLimitError) return error.code;
  if (error instanceof RampError) {
    const code: RampErrorCode = error.code;
    // @ts-expect-error the code is one of the API's codes, not any string
    const other: 'SOMETHING_ELSE' = error.code;
    // @ts-expect-error the status is undefined when no response arrived
    const status: number = error.status;
    void [other, status];
    return \`\${code} \${error.requestId ?? ''}\`;
  }
  return String(error);
}

export const rejected: SandboxBankAccount | undefined = SANDBOX_BANK_ACCOUNTS.find((account) => account.behaviour === 'payout_rejected');
// @ts-expect-error behaviours are a closed set
export const declined: SandboxBankAccount['behaviour'] = 'declined';
`;

/** Calls a real endpoint through the installed package: each sandbox account's bank verification, as JSON. */
const VERIFY_JS = `
const { RampClient, RampError, InvalidRequestError, SANDBOX_BANK_ACCOUNTS } = require('${PACKAGE_NAME}');
const ramp = new RampClient({ apiKey: process.env.RAMP_API_KEY, baseUrl: process.env.RAMP_BASE_URL });
(async () => {
  const results = [];
  for (const { bankCode, accountNumber } of SANDBOX_BANK_ACCOUNTS) {
    try {
      results.push({ accountNumber, verified: await ramp.banks.verify({ bankCode, accountNumber }) });
    } catch (error) {
      if (!(error instanceof RampError)) throw error;
      results.push({ accountNumber, error: { invalidRequest: error instanceof InvalidRequestError, code: error.code, status: error.status, field: error.field } });
    }
  }
  console.log(JSON.stringify(results));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

describe('SDK package - what `npm pack` makes installs in a fresh project and works there', () => {
  const work = mkdtempSync(join(tmpdir(), 'ramp-sdk-package-'));
  const consumer = join(work, 'consumer');
  // Outside any npm command of ours (jest may run under npm run): no inherited npm_* settings, a cache of its own.
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))),
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_update_notifier: 'false',
  };
  const run = async (file: string, args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}) => {
    try {
      return await promisify(execFile)(file, args, { cwd, env: { ...env, ...extraEnv }, maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`${file} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: error });
    }
  };
  const node = (script: string, extraEnv?: NodeJS.ProcessEnv) => run(process.execPath, [script], consumer, extraEnv);
  let packed: { filename: string; files: { path: string }[] };

  beforeAll(async () => {
    // `npm pack` runs the package's prepack: a clean build of dist/.
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], SDK_DIR);
    [packed] = JSON.parse(stdout.slice(stdout.indexOf('\n[') + 1)) as (typeof packed)[];
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'sdk-consumer', version: '1.0.0', private: true }));
    // The SDK has no dependencies: installing it needs no registry.
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, packed.filename)], consumer);
  });

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('holds exactly the compiled JavaScript, its declarations, the README and package.json', () => {
    expect(packed.files.map((file) => file.path).sort()).toEqual(expectedPackageFiles());
  });

  it('declares its entry points, files, licence and Node.js version, and no dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(consumer, 'node_modules', PACKAGE_NAME, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({
      name: PACKAGE_NAME,
      main: 'dist/index.js',
      types: 'dist/index.d.ts',
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' },
      files: ['dist', 'README.md'],
      license: expect.any(String),
      engines: { node: '>=20.11' },
    });
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(Object.keys(JSON.parse(readFileSync(join(consumer, 'package.json'), 'utf8')).dependencies)).toEqual([PACKAGE_NAME]);
  });

  it('is required from plain JavaScript and imported from an ES module, and verifies a webhook signed as the platform signs', async () => {
    writeFileSync(join(consumer, 'consumer.js'), CONSUMER_JS);
    writeFileSync(join(consumer, 'consumer.mjs'), CONSUMER_MJS);
    expect((await node('consumer.js')).stdout).toBe('consumer.js ok\n');
    expect((await node('consumer.mjs')).stdout).toBe('consumer.mjs ok\n');
  });

  it.each([
    ['node16', { module: 'node16', moduleResolution: 'node16' }],
    ['commonjs', { module: 'commonjs', moduleResolution: 'node10' }],
  ])('compiles a strict TypeScript consumer (module %s) that only its typings make correct', async (_, moduleOptions) => {
    writeFileSync(join(consumer, 'consumer.ts'), CONSUMER_TS);
    const compilerOptions = {
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: false,
      target: 'ES2022',
      lib: ['ES2022'],
      ...moduleOptions,
      // A Node.js backend has @types/node; the workspace's copy stands in for the consumer's own.
      types: ['node'],
      typeRoots: [join(WORKSPACE_ROOT, 'node_modules/@types')],
      noEmit: true,
    };
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
    const compiled = await run(process.execPath, [join(WORKSPACE_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], consumer).catch(
      (error: Error) => error,
    );
    expect(compiled instanceof Error ? compiled.message : '').toBe('');
  });

  describe('against the running gateway', () => {
    let services: Map<string, ServiceProcess>;

    beforeAll(async () => {
      services = await startServices(['quote', 'gateway']);
    });

    afterAll(async () => {
      await stopAll(services.values());
    });

    it('verifies every sandbox account through the installed package, with the behaviour the SDK states', async () => {
      const key = await createKey();
      writeFileSync(join(consumer, 'verify.js'), VERIFY_JS);
      const { stdout } = await node('verify.js', { RAMP_API_KEY: key.apiKey, RAMP_BASE_URL: `${services.get('gateway')!.url}/v1` });
      expect(JSON.parse(stdout)).toEqual(
        SANDBOX_BANK_ACCOUNTS.map(({ bankCode, bankName, accountNumber, accountName, behaviour }) =>
          behaviour === 'account_not_found'
            ? { accountNumber, error: { invalidRequest: true, code: 'INVALID_REQUEST', status: 400, field: 'accountNumber' } }
            : { accountNumber, verified: { bankCode, bankName, accountNumber, accountName } },
        ),
      );
    });
  });
});
