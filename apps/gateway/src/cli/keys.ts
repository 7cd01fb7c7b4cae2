import 'reflect-metadata';
import { Config } from '@ramp/config';
import { ENVIRONMENTS, type Environment } from '@ramp/contracts';
import { applyMigrations, ensureDatabase, openDatabase } from '@ramp/database';
import { KeyStore, PLANS, SecretBox, type Plan } from '@ramp/keys';
import { GATEWAY_DATABASE } from '../gateway.module';

const USAGE = `Usage:
  npm run keys -- create --org NAME --env test|live [--plan free|growth|enterprise]
                         [--rate-per-minute N --burst N]   (enterprise only)
                         [--allow-ip CIDR]...              (repeatable; restricts the key to these addresses)
  npm run keys -- revoke KEY_ID
  npm run keys -- list
Prints JSON on standard output; messages go to standard error. Needs only PostgreSQL (DATABASE_URL).`;

class UsageError extends Error {}

interface Parsed {
  command: string;
  positional: string[];
  flags: Map<string, string[]>;
}

function parse(argv: string[]): Parsed {
  const [command = '', ...rest] = argv;
  const positional: string[] = [];
  const flags = new Map<string, string[]>();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    const value = inline ?? rest[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { command, positional, flags };
}

function one(flags: Map<string, string[]>, name: string): string | undefined {
  const values = flags.get(name);
  if (values && values.length > 1) throw new UsageError(`--${name} may be given once`);
  return values?.[0];
}

function wholeNumber(flags: Map<string, string[]>, name: string): number | undefined {
  const raw = one(flags, name);
  if (raw === undefined) return undefined;
  if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw new UsageError(`--${name} must be a whole number of at least 1`);
  return Number(raw);
}

async function run(argv: string[]): Promise<unknown> {
  const { command, positional, flags } = parse(argv);
  if (command === '' || command === 'help' || flags.has('help')) throw new UsageError('');
  const config = new Config();
  const url = config.string('databaseUrl');
  await ensureDatabase(url);
  const orm = await openDatabase({ ...GATEWAY_DATABASE, url, poolMax: 2 });
  try {
    await applyMigrations(orm, GATEWAY_DATABASE.schema);
    const store = new KeyStore(orm.em, new SecretBox(config.string('secretsEncryptionKey'), config.isProduction));
    switch (command) {
      case 'create': {
        const known = new Set(['org', 'env', 'plan', 'rate-per-minute', 'burst', 'allow-ip']);
        for (const name of flags.keys()) if (!known.has(name)) throw new UsageError(`unknown option --${name}`);
        const organizationName = one(flags, 'org');
        if (!organizationName) throw new UsageError('--org NAME is required');
        const environment = one(flags, 'env');
        if (!environment || !(ENVIRONMENTS as readonly string[]).includes(environment)) throw new UsageError('--env must be test or live');
        const plan = one(flags, 'plan') ?? 'free';
        if (!(PLANS as readonly string[]).includes(plan)) throw new UsageError('--plan must be free, growth or enterprise');
        return await store.create({
          organizationName,
          environment: environment as Environment,
          plan: plan as Plan,
          perMinute: wholeNumber(flags, 'rate-per-minute'),
          burstPerSecond: wholeNumber(flags, 'burst'),
          allowedIps: flags.get('allow-ip') ?? [],
        });
      }
      case 'revoke': {
        const keyId = positional[0];
        if (!keyId) throw new UsageError('revoke needs a KEY_ID (see `npm run keys -- list`)');
        const revoked = await store.revoke(keyId);
        if (!revoked) throw new Error(`no key with id ${keyId}`);
        return revoked;
      }
      case 'list':
        return await store.list();
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } finally {
    await orm.close();
  }
}

run(process.argv.slice(2)).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message ? `${error.message}\n\n` : ''}${USAGE}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`keys: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
