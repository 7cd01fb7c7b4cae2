import { Pool } from 'pg';
import {
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  keccak256,
  parseEther,
  toHex,
  zeroAddress,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { english, generateMnemonic, mnemonicToAccount } from 'viem/accounts';
import { liveChainData } from '@ramp/chains';
import {
  forwarderFactoryAddress,
  HdCustody,
  LIVE_DEPLOYER_PATH,
  NATIVE_TOKEN,
  readHubPools,
  resolveChains,
  UniswapV2Factory,
  UniswapV2Router02,
} from '@ramp/evm';
import { SecretBox } from '@ramp/keys';
import { ANVIL_MNEMONIC, AnvilNode, runCompiled } from '@ramp/testing';
import { CHAIN_LOG } from '../events/log';
import { ChainContext, FIND_POOLS_RETRY_MS } from './chain-context';
import { findLiveDex } from './live-dex';

/**
 * `npm run chain:deploy -- --env live`, run as an operator runs it, against an anvil node standing in for Base (chain
 * id 8453) with code placed at the live configuration's third-party addresses: it refuses a chain whose tokens are not
 * there and a deployer that cannot pay, deploys the forwarder factory once, pins every contract the chain names, and the
 * chain service's start check refuses a contract that is not as pinned. The DEX's factory there is Uniswap V2's own code,
 * so that the chain finds its pools by asking it (getPair), as on the real chain.
 */
describe('chain:deploy - the platform contracts of a live chain, deployed and pinned', () => {
  const base = new AnvilNode({ chainId: 8453 });
  const box = new SecretBox(process.env.CUSTODY_SEALING_KEY, false);
  // A live seed is never the development seed: anvil's well-known mnemonic stands in (its keys here hold test coins only).
  // A seed of the test's own: a public one (anvil's) is refused as a live seed.
  const LIVE_SEED = generateMnemonic(english);
  const custody = HdCustody.sealed(box.seal(LIVE_SEED), box);
  const deployer = custody.signer(LIVE_DEPLOYER_PATH).address;
  const live = liveChainData('base')!;
  const thirdParties: Address[] = [
    ...live.tokens.map((token) => token.address as Address),
    live.wrappedNative!.address as Address,
    live.dex.factory.address as Address,
    live.dex.router.address as Address,
  ];
  const tokenOf = (symbol: string) => live.tokens.find((token) => token.symbol === symbol)!.address as Address;
  /** An account of anvil's with test coins, which deploys the stand-ins and creates pairs as anyone may. */
  const anyone = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 9 });
  /** Deploys `bytecode` (with its constructor's arguments appended) on `node` and places its code at `at`. */
  const placeContract = async (node: AnvilNode, at: Address, bytecode: Hex, args: Hex = '0x') => {
    const wallet = createWalletClient({ account: anyone, transport: http(node.rpcUrl) });
    const reader = createPublicClient({ transport: http(node.rpcUrl) });
    const hash = await wallet.sendTransaction({ chain: null, data: `${bytecode}${args.slice(2)}` as Hex });
    const { contractAddress } = await reader.waitForTransactionReceipt({ hash });
    await node.rpc('anvil_setCode', [at, await reader.getCode({ address: contractAddress! })]);
  };
  const createPair = async (node: AnvilNode, factory: Address, tokenA: Address, tokenB: Address) => {
    const wallet = createWalletClient({ account: anyone, transport: http(node.rpcUrl) });
    const reader = createPublicClient({ transport: http(node.rpcUrl) });
    const hash = await wallet.writeContract({ chain: null, address: factory, abi: UniswapV2Factory.abi, functionName: 'createPair', args: [tokenA, tokenB] });
    expect((await reader.waitForTransactionReceipt({ hash })).status).toBe('success');
    return getAddress(await reader.readContract({ address: factory, abi: UniswapV2Factory.abi, functionName: 'getPair', args: [tokenA, tokenB] }));
  };
  const warnings: string[] = [];
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
      logger: { info: () => undefined, warn: (_fields: unknown, message: string) => void warnings.push(message), error: () => undefined },
      stuckAfterMs: 1000,
      maxFeePerGas: parseEther('0.000001'),
      onHotSendFinished: async () => undefined,
    });

  beforeAll(async () => {
    await base.start();
    client = createPublicClient({ transport: http(base.rpcUrl) }) as PublicClient;
    env = {
      LIVE_CHAINS: JSON.stringify({ base: { chainId: 8453, rpcUrl: base.rpcUrl, hotWalletPath: "m/44'/60'/1'/0/0", finality: 'depth', confirmations: 12 } }),
      CUSTODY_SEED: box.seal(LIVE_SEED),
    };
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    // The deploy command migrates the chain schema (MIGRATE_ON_START); its first run below creates the table.
    await runCompiled('dist/apps/chain/src/cli/deploy.js', ['--env', 'live', '--chain', 'base', '--check'], env);
    // An earlier run's pins go: the table refuses deletes (append-only), so its triggers are set aside for this test's
    // cleanup alone (a superuser's session_replication_role).
    const cleanup = await pool.connect();
    try {
      await cleanup.query('begin');
      await cleanup.query(`set local session_replication_role = replica`);
      await cleanup.query(`delete from chain.contract_pins where chain = 'live-base'`);
      await cleanup.query('commit');
    } catch (error) {
      await cleanup.query('rollback');
      throw error;
    } finally {
      cleanup.release();
    }
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
    await placeContract(base, live.dex.factory.address as Address, UniswapV2Factory.bytecode as Hex, `0x${'0'.repeat(64)}`);
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
    expect(names).toEqual(expect.arrayContaining(['tokens.CNGN', 'tokens.USDC', 'forwarderFactory', 'wrappedNative', 'dex.factory', 'dex.router']));
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
    // The pins are a record: no role changes or removes one.
    await expect(pool.query(`update chain.contract_pins set code_hash = 'x' where chain = 'live-base'`)).rejects.toThrow('append-only: UPDATE');
    await expect(pool.query(`delete from chain.contract_pins where chain = 'live-base'`)).rejects.toThrow('append-only: DELETE');
    await expect(pool.query(`truncate chain.contract_pins`)).rejects.toThrow('append-only: TRUNCATE');
    expect(await pins()).toHaveLength(2 * names.length);
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

  it("finds the chain's pools by asking the DEX's factory: a token without a pair is not swapped, and a pair created later is found at the next start, never refusing the chain", async () => {
    const cngnPair = await createPair(base, live.dex.factory.address as Address, tokenOf('CNGN'), tokenOf('USDC'));
    warnings.length = 0;
    const context = contextOf();
    await expect(context.checkContracts()).resolves.toBeUndefined();
    expect(context.dex).toMatchObject({ hub: 'USDC', pairs: { CNGN: cngnPair }, tokens: { ETH: getAddress(live.wrappedNative!.address) } });
    expect(context.network.contracts.dex).toMatchObject({ name: 'Uniswap V2', hub: 'USDC', pairs: { CNGN: cngnPair } });
    expect(warnings).toEqual(['Uniswap V2 has no pool of ETH with USDC on base: not swapped there']);
    // The pools are read from the pairs found (none has liquidity on this stand-in), and the ETH pool is none of them.
    const pools = await readHubPools(context.client, context.dex!, await context.client.getBlockNumber());
    expect(pools.pools).toEqual([{ token: 'CNGN', tokenReserve: 0n, hubReserve: 0n }]);

    // Anyone may create a pair: it is not a contract the operator pins, and the next start swaps through it.
    const ethPair = await createPair(base, live.dex.factory.address as Address, live.wrappedNative!.address as Address, tokenOf('USDC'));
    const again = contextOf();
    await expect(again.checkContracts()).resolves.toBeUndefined();
    expect(again.dex!.pairs).toEqual({ CNGN: cngnPair, ETH: ethPair });
    // A replica that found the pools before the pair existed looks again when a swap's path needs it (a swap another
    // replica accepted through it is still booked), at most every FIND_POOLS_RETRY_MS.
    await new Promise((wait) => setTimeout(wait, FIND_POOLS_RETRY_MS));
    expect((await context.poolsFor('ETH', 'USDC')).pairs).toEqual({ CNGN: cngnPair, ETH: ethPair });
    expect(context.network.contracts.dex!.pairs).toEqual({ CNGN: cngnPair, ETH: ethPair });
    expect(JSON.parse((await deploy('--check')).stdout)).toMatchObject({ unpinned: [] });
  });

  it("takes the wrapped native coin from the DEX's router where no primary source publishes it (bsc)", async () => {
    const bsc = new AnvilNode({ chainId: 56 });
    await bsc.start();
    try {
      const data = liveChainData('bsc')!;
      const factory = data.dex.factory.address as Address;
      // The router names its factory and wrapped coin in its code (immutables): a stand-in WBNB at an address of its own.
      const wbnb = getAddress('0x00000000000000000000000000000000000b4b4b');
      await bsc.rpc('anvil_setCode', [wbnb, '0x60006000fd']);
      await placeContract(bsc, factory, UniswapV2Factory.bytecode as Hex, `0x${'0'.repeat(64)}`);
      const args = `0x${factory.slice(2).toLowerCase().padStart(64, '0')}${wbnb.slice(2).toLowerCase().padStart(64, '0')}` as Hex;
      await placeContract(bsc, data.dex.router.address as Address, UniswapV2Router02.bytecode as Hex, args);
      const usdt = data.tokens.find((token) => token.symbol === 'USDT')!.address as Address;
      const bnbPair = await createPair(bsc, factory, wbnb, usdt);
      const tokens = [
        { symbol: 'BNB', decimals: 18, address: NATIVE_TOKEN },
        ...data.tokens.map((token) => ({ symbol: token.symbol, decimals: token.decimals, address: token.address.toLowerCase() as Address })),
      ];
      const found = await findLiveDex(createPublicClient({ transport: http(bsc.rpcUrl) }), data, tokens, 'BNB');
      expect(found.wrappedNative).toBe(wbnb);
      expect(found.dex).toMatchObject({ hub: 'USDT', native: 'BNB', pairs: { BNB: bnbPair }, tokens: { BNB: wbnb, USDT: getAddress(usdt) } });
      expect(found.unpooled.sort()).toEqual(['CNGN', 'ETH']);
      expect(Object.values(found.dex.pairs)).not.toContain(zeroAddress);
    } finally {
      await bsc.stop();
    }
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
    // --help anywhere: the usage, nothing else done.
    const help = await deploy('--operator', 'ada', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('npm run chain:deploy -- --env live --chain CHAIN --operator NAME');
  });
});
