import 'reflect-metadata';
import { formatUnits, parseGwei } from 'viem';
import { Config } from '@ramp/config';
import { LIVE_DEPLOYER_PATH } from '@ramp/evm';
import { createLogger, openServiceDatabase, runOperatorCommand, UsageError } from '@ramp/service-kit';
import { CHAIN_DATABASE } from '../chain.module';
import { ChainContext } from '../context/chain-context';
import { LiveDeployment, unpinnedContracts } from '../context/live-deployment';
import { CHAIN_LOG } from '../events/log';
import { configuredChains } from '../networks/configured-chains';

const USAGE = `Usage:
  npm run chain:deploy -- --env live --chain CHAIN --operator NAME
      Deploys the platform's own contracts on the live chain CHAIN (a chain of LIVE_CHAINS: base, bsc) from the live
      deployer key (the live custody's m/44'/60'/4339'/0/0): the forwarder factory of the chain's hot wallet, through
      the deterministic deployment proxy, and with a bundler the smart accounts' factory and paymaster. Then records
      every contract the chain names (its tokens, wrapped coin, DEX factory and router, forwarder factory, EntryPoint...) with the hash of its
      code and NAME: the chain service runs a live chain only if each is recorded and its code unchanged. Refuses,
      sending nothing, when a third party's contract has no code (the node is another chain, or not synced) or the
      deployer cannot pay the gas (it says how much to send it). Safe to run again: what is deployed is not deployed
      twice, and the pins are recorded again. Run it again after every change of the live configuration.
  npm run chain:deploy -- --env live --chain CHAIN --check
      Sends nothing: prints the deployer's address and balance, what a run would deploy and its gas, and what keeps
      the chain from running now.
  npm run chain:deploy -- help   (or --help or -h anywhere, or no option): prints this.
Needs the chain service's settings (LIVE_CHAINS, CUSTODY_SEED, CUSTODY_SEALING_KEY) and PostgreSQL (DATABASE_URL).`;

type Request = 'help' | { command: 'check'; chain: string } | { command: 'deploy'; chain: string; operator: string };

function parse(argv: string[]): Request {
  if (argv.length === 0 || argv[0] === 'help' || argv.some((arg) => arg === '--help' || arg === '-h')) return 'help';
  const options: Record<string, string | undefined> = {};
  let check = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--check') {
      check = true;
      continue;
    }
    const option = /^--(env|chain|operator)(?:=(.*))?$/.exec(arg);
    if (!option) throw new UsageError(`unknown argument ${arg}`);
    const value = option[2] ?? argv[++i];
    if (value === undefined || value.startsWith('-')) throw new UsageError(`--${option[1]} needs a value`);
    if (options[option[1]!] !== undefined) throw new UsageError(`--${option[1]} is given twice`);
    options[option[1]!] = value.trim();
  }
  if (options.env !== 'live')
    throw new UsageError(`--env live is required: the platform deploys its contracts on local test chains itself, and only live chains need this command`);
  if (!options.chain) throw new UsageError('--chain CHAIN is required (a chain of LIVE_CHAINS: base, bsc)');
  if (check) {
    if (options.operator !== undefined) throw new UsageError('--check sends and records nothing: it takes no --operator');
    return { command: 'check', chain: options.chain };
  }
  if (!options.operator) throw new UsageError('--operator NAME is required: who deployed and confirmed the contracts is recorded');
  return { command: 'deploy', chain: options.chain, operator: options.operator };
}

async function run(request: Exclude<Request, 'help'>): Promise<void> {
  const config = new Config();
  const chains = configuredChains(config);
  const settings = chains.live.find((candidate) => candidate.chain === request.chain);
  if (!settings || !chains.custody.live) {
    const configured = chains.live.map((candidate) => candidate.chain).join(', ') || 'none';
    throw new UsageError(`${request.chain} is not a chain of LIVE_CHAINS (configured: ${configured})`);
  }
  const custody = chains.custody.live;
  const database = await openServiceDatabase(CHAIN_DATABASE, config, 'chain-deploy', 2);
  try {
    const context = new ChainContext({
      environment: 'live',
      settings,
      custody,
      pool: database.pool,
      log: CHAIN_LOG,
      // Standard output is the command's JSON answer: the chain's logs go to standard error.
      logger: createLogger('chain-deploy', config.string('logLevel'), 2),
      stuckAfterMs: 1000,
      maxFeePerGas: parseGwei(config.string('chainMaxFeeGwei')),
      onHotSendFinished: async () => {
        throw new Error('chain:deploy sends nothing through the send queues');
      },
    });
    await context.checkChainId();
    const deployment = new LiveDeployment(context, custody.signer(LIVE_DEPLOYER_PATH));
    if (request.command === 'check') {
      const plan = await deployment.plan();
      const { decimals } = context.native;
      const unpinned = await unpinnedContracts(database.pool, context.id, await context.contractCodes());
      const output = { ...plan, balance: formatUnits(plan.balance, decimals), cost: formatUnits(plan.cost, decimals), unpinned };
      process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
      return;
    }
    const pins = await deployment.run(request.operator);
    process.stdout.write(`${JSON.stringify({ chain: context.id, operator: request.operator, contracts: pins }, null, 2)}\n`);
  } finally {
    await database.close();
  }
}

runOperatorCommand<Exclude<Request, 'help'>>({ name: 'chain:deploy', usage: USAGE, parse, run });
