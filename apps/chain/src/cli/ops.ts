import 'reflect-metadata';
import { Config } from '@ramp/config';
import { AppError } from '@ramp/contracts';
import { openServiceDatabase, runOperatorCommand, UsageError } from '@ramp/service-kit';
import { CHAIN_DATABASE } from '../chain.module';
import { listReturns, requestReturn } from '../accounts/account-operations';

const USAGE = `Usage:
  npm run chain:ops -- return-token CHAIN WALLET_ID TOKEN TO --reference REF --operator NAME
      Sends back all that a managed wallet's account (WALLET_ACCOUNTS) holds of a token the chain does not list (TOKEN,
      its contract's address) to the address TO, as one sponsored operation from the account, and records NAME and REF
      (your own reference, a support ticket): someone sent it there by mistake, and nothing else can move it. CHAIN is
      the chain service's id of the chain (test-base, base). The chain service's leader prepares and sends it; the
      command prints where it stands (queued, pending, confirmed with what was returned, or failed with the reason:
      a token the chain lists, none of it in the account). Safe to run again: the same wallet, token, TO and REF are
      one return, and running it again prints where it stands.
  npm run chain:ops -- returns [CHAIN]
      Lists the returns asked, newest first, as JSON.
  npm run chain:ops -- help   (or --help, -h, or no command): prints this.
Needs PostgreSQL (DATABASE_URL); the chain service sends.`;

type Request =
  | { command: 'returns'; chain?: string }
  | { command: 'return-token'; chain: string; walletId: string; token: string; to: string; reference: string; operator: string };

function parse(argv: string[]): Request | 'help' {
  if (argv.length === 0 || ['help', '--help', '-h'].includes(argv[0]!)) return 'help';
  const [command, ...rest] = argv;
  const positional: string[] = [];
  const options: Record<string, string | undefined> = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const option = /^--(reference|operator)(?:=(.*))?$/.exec(arg);
    if (option) {
      const value = option[2] ?? rest[++i];
      if (value === undefined || value.startsWith('-')) throw new UsageError(`--${option[1]} needs a value`);
      if (options[option[1]!] !== undefined) throw new UsageError(`--${option[1]} is given twice`);
      options[option[1]!] = value;
      continue;
    }
    if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg} for ${command}`);
    positional.push(arg);
  }
  if (command === 'returns') {
    if (positional.length > 1 || Object.keys(options).length > 0) throw new UsageError('returns takes at most CHAIN');
    return { command, ...(positional[0] && { chain: positional[0] }) };
  }
  if (command === 'return-token') {
    const [chain, walletId, token, to] = positional;
    if (!chain || !walletId || !token || !to || positional.length > 4) throw new UsageError('return-token takes CHAIN, WALLET_ID, TOKEN and TO');
    if (!options.reference?.trim()) throw new UsageError('--reference REF is required: your own reference makes the return once');
    if (!options.operator?.trim()) throw new UsageError('--operator NAME is required: who asks is recorded');
    return { command, chain, walletId, token, to, reference: options.reference.trim(), operator: options.operator.trim() };
  }
  throw new UsageError(`unknown command "${command}"`);
}

runOperatorCommand<Request>({
  name: 'chain:ops',
  usage: USAGE,
  parse,
  // A request the chain cannot take (an address malformed, a wallet whose address is not an account there).
  refuses: (error) => error instanceof AppError,
  run: async (request) => {
    const database = await openServiceDatabase(CHAIN_DATABASE, new Config(), 'chain-ops', 2);
    try {
      const output = request.command === 'returns' ? await listReturns(database.pool, request.chain) : await requestReturn(database.pool, request);
      process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
    } finally {
      await database.close();
    }
  },
});
