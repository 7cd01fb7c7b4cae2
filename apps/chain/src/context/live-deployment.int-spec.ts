import { Pool } from 'pg';
import { createPublicClient, http, keccak256, parseEther, toHex, type Address, type PublicClient } from 'viem';
import { liveChainData } from '@ramp/chains';
import { forwarderFactoryAddress, HdCustody, LIVE_DEPLOYER_PATH, resolveChains } from '@ramp/evm';
import { SecretBox } from '@ramp/keys';
import { ANVIL_MNEMONIC, AnvilNode, runCompiled } from '@ramp/testing';
import { CHAIN_LOG } from '../events/log';
import { ChainContext } from './chain-context';

/**
 * `npm run chain:deploy -- --env live`, run as an operator runs it, against an anvil node standing in for Base (chain
 * id 8453) with code placed at the live configuration's third-party addresses: it refuses a chain whose tokens are not
 * there and a deployer that cannot pay, deploys the forwarder factory once, pins every contract the chain names, and the
 * chain service's start check refuses a contract that is not as pinned.
 */
describe('chain:deploy - the platform contracts of a live chain, deployed and pinned', () => {
  const base = new AnvilNode({ chainId: 8453 });
  const box = new SecretBox(process.env.CUSTODY_SEALING_KEY, false);
  // A live seed is never the development seed: anvil's well-known mnemonic stands in (its keys here hold test coins only).
  const custody = HdCustody.sealed(box.seal(ANVIL_MNEMONIC), box);
  const deployer = custody.signer(LIVE_DEPLOYER_PATH).address;
  const live = liveChainData('base')!;
  const thirdParties: Address[] = [...live.tokens.map((token) => token.address as Address), live.wrappedNative!.address as Address];
  let pool: Pool;
  let client: PublicClient;
  let env: Record<string, string>;

  const deploy = (...args: string[]) => runCompiled('dist/apps/chain/src/cli/deploy.js', ['--env', 'live', '--chain', 'base', ...args], env);
  const setCode = (address: Address, code: string) => base.rpc('anvil_setCode', [address, code]);
  const pins = async () =>
    (
      await pool.query<{ name: string; deployed: boolean; transaction_hash: string | null; operator: string }>(
        `select name, deployed, transaction_hash, operator from chain.contract_pins where chain = 'live-base' order by id`,
      )
    ).rows;
  const contextOf = () =>
    new ChainContext({
      environment: 'live',
      settings: resolveChains('live', JSON.parse(env.LIVE_CHAINS!), 'LIVE_CHAINS')[0]!,
      custody,
      pool,
      log: CHAIN_LOG,
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      stuckAfterMs: 1000,
      maxFeePerGas: parseEther('0.000001'),
      onHotSendFinished: async () => undefined,
    });

  beforeAll(async () => {
    await base.start();
    client = createPublicClient({ transport: http(base.rpcUrl) }) as PublicClient;
    env = {
      LIVE_CHAINS: JSON.stringify({ base: { chainId: 8453, rpcUrl: base.rpcUrl, hotWalletPath: "m/44'/60'/1'/0/0", finality: 'depth', confirmations: 12 } }),
      CUSTODY_SEED: box.seal(ANVIL_MNEMONIC),
    };
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    // The deploy command migrates the chain schema (MIGRATE_ON_START); its first run below creates the table.
    await runCompiled('dist/apps/chain/src/cli/deploy.js', ['--env', 'live', '--chain', 'base', '--check'], env);
    await pool.query(`delete from chain.contract_pins where chain = 'live-base'`);
  }, 60_000);

  afterAll(async () => {
    await pool.end();
    await base.stop();
  });

  it("refuses, sending nothing, a chain where a third party's contract has no code: the node is not the chain the configuration names", async () => {
    const result = await deploy('--operator', 'ada');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`no code at tokens.CNGN (${live.tokens.find((token) => token.symbol === 'CNGN')!.address})`);
    expect(result.stderr).toContain('nothing was deployed');
    expect(await client.getTransactionCount({ address: deployer })).toBe(0);
    expect(await pins()).toEqual([]);
  });

  it('refuses a deployer that cannot pay the gas, saying how much to send it, then deploys the forwarder factory once and pins every contract', async () => {
    for (const address of thirdParties) await setCode(address, '0x60006000fd');
    const hot = custody.signer("m/44'/60'/1'/0/0").address;
    const factory = forwarderFactoryAddress(hot);

    const plan = JSON.parse((await deploy('--check')).stdout);
    expect(plan).toMatchObject({ chain: 'live-base', deployer, balance: '0', native: 'ETH', missing: ['forwarderFactory'], absent: [] });
    expect(Number(plan.cost)).toBeGreaterThan(0);
    expect(plan.unpinned).toContain(`forwarderFactory (${factory}) was never recorded`);

    const poor = await deploy('--operator', 'ada');
    expect(poor.code).toBe(2);
    expect(poor.stderr).toContain(`the deployer ${deployer} holds 0 ETH; send it at least ${plan.cost} ETH more for the gas`);
    expect(await client.getCode({ address: factory })).toBeUndefined();

    await base.rpc('anvil_setBalance', [deployer, toHex(parseEther('1'))]);
    const first = await deploy('--operator', 'ada');
    expect(first.code).toBe(0);
    const deployed = JSON.parse(first.stdout);
    expect(deployed.chain).toBe('live-base');
    const names = deployed.contracts.map((contract: { name: string }) => contract.name);
    expect(names).toEqual(expect.arrayContaining(['tokens.CNGN', 'tokens.USDC', 'forwarderFactory', 'wrappedNative']));
    expect(names).toHaveLength(thirdParties.length + 1);
    const ownPin = deployed.contracts.find((contract: { name: string }) => contract.name === 'forwarderFactory');
    expect(ownPin).toMatchObject({ address: factory, deployed: true });
    expect(ownPin.codeHash).toBe(keccak256((await client.getCode({ address: factory }))!));
    const receipt = await client.getTransactionReceipt({ hash: ownPin.transactionHash });
    expect(receipt.status).toBe('success');
    expect(receipt.from).toBe(deployer.toLowerCase());
    expect(await client.getTransactionCount({ address: deployer })).toBe(1);

    // Again: nothing sent, the same contracts pinned again by another operator, none of them deployed by this run.
    const second = await deploy('--operator', 'grace');
    expect(second.code).toBe(0);
    expect(await client.getTransactionCount({ address: deployer })).toBe(1);
    const rows = await pins();
    expect(rows).toHaveLength(2 * names.length);
    expect(rows.filter((row) => row.operator === 'grace').every((row) => !row.deployed && row.transaction_hash === null)).toBe(true);
    expect(rows.filter((row) => row.deployed)).toEqual([
      expect.objectContaining({ name: 'forwarderFactory', operator: 'ada', transaction_hash: ownPin.transactionHash }),
    ]);
    expect(JSON.parse((await deploy('--check')).stdout)).toMatchObject({ missing: [], unpinned: [] });
    await expect(contextOf().checkContracts()).resolves.toBeUndefined();
  });

  it("refuses to run the chain once a contract's code is not what was pinned, until the operator records it again", async () => {
    const usdc = live.tokens.find((token) => token.symbol === 'USDC')!.address as Address;
    await setCode(usdc, '0x60016000fd');
    await expect(contextOf().checkContracts()).rejects.toThrow(
      `live-base is not run: tokens.USDC (${usdc}) has other code than was recorded; run \`npm run chain:deploy -- --env live --chain base\``,
    );
    expect(JSON.parse((await deploy('--check')).stdout).unpinned).toEqual([`tokens.USDC (${usdc}) has other code than was recorded`]);
    // The operator checks the change (what the issuer published) and records it.
    expect((await deploy('--operator', 'ada')).code).toBe(0);
    await expect(contextOf().checkContracts()).resolves.toBeUndefined();
  });

  it('refuses what is not a live chain of the settings, and an incomplete command, with the usage', async () => {
    const bsc = await deploy('--operator', 'ada', '--chain', 'bsc');
    expect(bsc.code).toBe(2);
    expect(bsc.stderr).toContain('--chain is given twice');
    const notLive = await runCompiled('dist/apps/chain/src/cli/deploy.js', ['--env', 'live', '--chain', 'bsc', '--operator', 'ada'], env);
    expect(notLive.code).toBe(2);
    expect(notLive.stderr).toContain('bsc is not a chain of LIVE_CHAINS (configured: base)');
    const test = await runCompiled('dist/apps/chain/src/cli/deploy.js', ['--env', 'test', '--chain', 'base', '--operator', 'ada'], env);
    expect(test.code).toBe(2);
    expect(test.stderr).toContain('--env live is required');
    const anonymous = await deploy();
    expect(anonymous.code).toBe(2);
    expect(anonymous.stderr).toContain('--operator NAME is required');
  });
});
