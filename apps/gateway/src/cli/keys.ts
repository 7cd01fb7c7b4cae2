import 'reflect-metadata';
import { Config } from '@ramp/config';
import { ENVIRONMENTS, type Environment } from '@ramp/contracts';
import { KeyStore, OrganizationNameTaken, PLANS, SecretBox, type CreatedKey, type Plan } from '@ramp/keys';
import { openServiceDatabase } from '@ramp/service-kit';
import { GATEWAY_DATABASE } from '../gateway.module';

const USAGE = `Usage:
  npm run keys -- create --org NAME --env test|live [--org-id ORG_ID] [--plan free|growth|enterprise]
                         [--rate-per-minute N --burst N]   (enterprise only)
                         [--allow-ip CIDR]...              (repeatable; restricts the key to these addresses)
      Issues a key and its API secret, printed once. NAME must be new (regardless of case), unless --org-id
      names the existing organization called NAME: the key then joins it (rotation, a live key beside a test one).
      A test key is also given as a line to paste into a shell, on standard error: export KEY=service_test_...
  npm run keys -- revoke KEY_ID
      Revokes a key; when the command returns, every gateway replica refuses it.
  npm run keys -- list [--org ORG_ID|NAME]
      Lists keys (never the key or the secret): all of them, or one organization's.
  npm run keys -- help   (or --help, -h, or no command): prints this.
Prints JSON on standard output; messages go to standard error. Needs only PostgreSQL (DATABASE_URL).`;

/** Bad usage: exit code 2, the message and the usage on standard error. */
class UsageError extends Error {}

type Flags = Map<string, string[]>;

/** What each command accepts: options (each taking a value) and how many positional arguments. */
const COMMANDS: Readonly<Record<string, { options: readonly string[]; positional: number }>> = {
  create: { options: ['org', 'org-id', 'env', 'plan', 'rate-per-minute', 'burst', 'allow-ip'], positional: 0 },
  revoke: { options: [], positional: 1 },
  list: { options: ['org'], positional: 0 },
};

const HELP_FLAGS = ['--help', '-h'];

/** The command and its arguments, or 'help'. Every unknown command, option or argument is a UsageError naming it. */
function parse(argv: string[]): { command: string; positional: string[]; flags: Flags } | 'help' {
  // A value of an option never starts with '-' (use --org=-name for that), so --help and -h are always the flag.
  if (argv.length === 0 || argv[0] === 'help' || argv.some((arg) => HELP_FLAGS.includes(arg))) return 'help';
  const [command = '', ...rest] = argv;
  if (command.startsWith('-')) {
    const known = Object.values(COMMANDS).some(({ options }) => options.includes(command.replace(/^--|=.*$/g, '')));
    throw new UsageError(known ? `the command (create, revoke or list) comes first, before ${command}` : `unknown option ${command}`);
  }
  const accepts = COMMANDS[command];
  if (!accepts) throw new UsageError(`unknown command "${command}"`);
  const positional: string[] = [];
  const flags: Flags = new Map();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (!arg.startsWith('-')) {
      if (positional.length === accepts.positional) throw new UsageError(`unexpected argument "${arg}" for ${command}`);
      positional.push(arg);
      continue;
    }
    const [name, inline] = (arg.startsWith('--') ? arg.slice(2).split(/=(.*)/s, 2) : [arg]) as [string, string | undefined];
    if (!arg.startsWith('--') || !accepts.options.includes(name)) throw new UsageError(`unknown option ${arg.split('=')[0]} for ${command}`);
    const next = rest[i + 1];
    const value = inline ?? (next === undefined || next.startsWith('-') ? undefined : rest[++i]);
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { command, positional, flags };
}

function one(flags: Flags, name: string): string | undefined {
  const values = flags.get(name);
  if (values && values.length > 1) throw new UsageError(`--${name} may be given once`);
  return values?.[0];
}

function wholeNumber(flags: Flags, name: string): number | undefined {
  const raw = one(flags, name);
  if (raw === undefined) return undefined;
  if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw new UsageError(`--${name} must be a whole number of at least 1`);
  return Number(raw);
}

/** What a command gives: its result, printed as JSON on standard output, and a line for the operator on standard error. */
interface Outcome {
  result: unknown;
  hint?: string;
}

/**
 * The line that sets `$KEY` as the README's examples use it, for a test key. Standard output stays the JSON alone for
 * scripts; a live key is not printed a second time, so that no log of standard error ever holds one.
 */
function exportHint(created: CreatedKey): string | undefined {
  return created.environment === 'test' ? `export KEY=${created.apiKey}` : undefined;
}

/** Checks the usage of a command without touching the database, and returns what running it does with the store. */
function plan(command: string, positional: string[], flags: Flags): (store: KeyStore) => Promise<Outcome> {
  switch (command) {
    case 'create': {
      const organizationName = one(flags, 'org');
      if (!organizationName) throw new UsageError('--org NAME is required');
      const environment = one(flags, 'env');
      if (!environment || !(ENVIRONMENTS as readonly string[]).includes(environment)) throw new UsageError('--env must be test or live');
      const keyPlan = one(flags, 'plan') ?? 'free';
      if (!(PLANS as readonly string[]).includes(keyPlan)) throw new UsageError('--plan must be free, growth or enterprise');
      const input = {
        organizationName,
        organizationId: one(flags, 'org-id'),
        environment: environment as Environment,
        plan: keyPlan as Plan,
        perMinute: wholeNumber(flags, 'rate-per-minute'),
        burstPerSecond: wholeNumber(flags, 'burst'),
        allowedIps: flags.get('allow-ip') ?? [],
      };
      return async (store) => {
        const created = await store.create(input).catch((error: unknown) => {
          if (!(error instanceof OrganizationNameTaken)) throw error;
          const { id } = error.existing;
          throw new Error(`${error.message}. To add a key to it, run the command again with --org-id ${id}; for a new organization, choose another name.`);
        });
        return { result: created, hint: exportHint(created) };
      };
    }
    case 'revoke': {
      const keyId = positional[0];
      if (!keyId) throw new UsageError('revoke needs a KEY_ID (see `npm run keys -- list`)');
      return async (store) => {
        const revoked = await store.revoke(keyId);
        if (!revoked) throw new Error(`no key with id ${keyId}`);
        return { result: revoked };
      };
    }
    default: {
      const organization = one(flags, 'org');
      return async (store) => ({ result: await store.list({ organization }) });
    }
  }
}

/** Runs the command line; resolves with the text for standard output (JSON, or the usage when asked for help) and the hint. */
async function run(argv: string[]): Promise<{ stdout: string; hint?: string }> {
  const parsed = parse(argv);
  if (parsed === 'help') return { stdout: USAGE };
  const execute = plan(parsed.command, parsed.positional, parsed.flags);
  const config = new Config();
  // As the gateway opens it: in a gateway pod (MIGRATE_ON_START=false), as the role that may only read and write.
  const database = await openServiceDatabase(GATEWAY_DATABASE, config, 'keys', 2);
  try {
    const { result, hint } = await execute(
      new KeyStore(database.orm.em, database.pool, new SecretBox(config.string('secretsEncryptionKey'), config.isProduction)),
    );
    return { stdout: JSON.stringify(result, null, 2), hint };
  } finally {
    await database.close();
  }
}

run(process.argv.slice(2)).then(
  (output) => {
    process.stdout.write(`${output.stdout}\n`);
    if (output.hint) process.stderr.write(`${output.hint}\n`);
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
