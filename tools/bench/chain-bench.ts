import { Pool } from 'pg';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  maxUint256,
  parseEther,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { setTimeout as sleep } from 'timers/promises';
import { getChain } from '@ramp/chains';
import { ensureDatabase } from '@ramp/database';
import {
  accountOwnerPath,
  AltoBundler,
  accountSalt,
  revertDataReason,
  deploySmartAccountContracts,
  routerSwapCall,
  seedPools,
  simpleAccount,
  sponsorship,
  UserOperations,
  deployPlatformContracts,
  depositAddressOf,
  DepositWatcher,
  depositWatcherMigration,
  evmPath,
  HdCustody,
  lanePath,
  SendQueue,
  sendQueueMigration,
  TestToken,
  testContractsOf,
  type ChainLogger,
} from '@ramp/evm';
import { AnvilNode, ANVIL_MNEMONIC, freePort } from '@ramp/testing';
import { SendLanes, type LaneSends } from '../../apps/chain/src/context/lanes';
import { percentile, runAlone, type BenchSection } from './report';

const SENDS = Number(process.env.BENCH_CHAIN_SENDS ?? 300);
const LANE_SENDS = Number(process.env.BENCH_CHAIN_LANE_SENDS ?? 192);
const LANES = 4;
/** CHAIN_LANE_MAX_PENDING's default: what one lane has signed and not yet mined at once. */
const LANE_MAX_PENDING = 16;
const DEPOSITS = Number(process.env.BENCH_CHAIN_DEPOSITS ?? 20);
const DEPTH = 2;
const USER_OPERATIONS = Number(process.env.BENCH_CHAIN_USER_OPERATIONS ?? 60);
const QUIET: ChainLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: (fields, message) => process.stderr.write(`${message} ${JSON.stringify(fields)}\n`),
};

const faucet = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 });
const plainSender = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 2 });
const outsider = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 3 });
const hot = HdCustody.development().signer(evmPath("m/44'/60'/1'/0/0"));

async function onChain(node: AnvilNode, pool: Pool, schema: string) {
  const client = createPublicClient({ transport: http(node.rpcUrl) }) as PublicClient;
  const contracts = await deployPlatformContracts(
    client,
    createWalletClient({ account: faucet, transport: http(node.rpcUrl) }),
    testContractsOf(getChain('base'), faucet.address, hot.address, faucet.address),
    parseEther('100'),
  );
  for (const statement of [...sendQueueMigration(schema), ...depositWatcherMigration(schema)]) await pool.query(statement);
  const mint = async (to: Address, amount: bigint) => {
    const hash = await createWalletClient({ account: faucet, transport: http(node.rpcUrl) }).writeContract({
      chain: null,
      address: contracts.tokens.USDC,
      abi: TestToken.abi,
      functionName: 'mint',
      args: [to, amount],
    });
    await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  };
  return { client, contracts, mint };
}

/** Token transfers from one hot wallet: the send queue against viem's own sendTransaction loop, on one anvil node. */
async function benchSends(pool: Pool, schema: string): Promise<{ baseline: number; result: number }> {
  const node = await new AnvilNode({ chainId: 84532 }).start();
  try {
    const { client, contracts, mint } = await onChain(node, pool, schema);
    await mint(hot.address, BigInt(SENDS) * 10n);
    await mint(plainSender.address, BigInt(SENDS) * 10n);
    const transfer = encodeFunctionData({ abi: TestToken.abi, functionName: 'transfer', args: [outsider.address, 1n] });

    // Baseline: viem's sendTransaction, one after the other (nonce, fees and gas read from the node each time).
    const wallet = createWalletClient({ account: plainSender, transport: http(node.rpcUrl) });
    let started = performance.now();
    let last: Hex = '0x';
    for (let i = 0; i < SENDS; i++) last = await wallet.sendTransaction({ chain: null, to: contracts.tokens.USDC, data: transfer });
    await client.waitForTransactionReceipt({ hash: last, pollingInterval: 20 });
    const baseline = SENDS / ((performance.now() - started) / 1000);

    // The send queue: every send queued with its key, then ticked until each is confirmed with its receipt.
    const queue = new SendQueue({
      schema,
      pool,
      chain: 'base',
      chainId: 84532,
      client,
      signer: hot,
      confirmations: 1,
      stuckAfterMs: 60_000,
      maxFeePerGas: parseEther('0.001'),
      logger: QUIET,
    });
    started = performance.now();
    for (let i = 0; i < SENDS; i++) await queue.enqueue(pool, `bench:${i}`, { to: contracts.tokens.USDC, data: transfer });
    for (;;) {
      await queue.tick();
      const { rows } = await pool.query<{ open: string }>(`select count(*) as open from ${schema}.chain_sends where status <> 'confirmed'`);
      if (rows[0].open === '0') break;
    }
    const result = SENDS / ((performance.now() - started) / 1000);
    return { baseline, result };
  } finally {
    await node.stop();
  }
}

/**
 * Token transfers of one chain with 1-second blocks, through its send lanes (the chain service's SendLanes: each lane
 * at most LANE_MAX_PENDING in flight, a lane's transfer a transferFrom of the hot wallet's tokens), with 4 lanes and
 * with the hot wallet alone: the same sends, each queued with its key and followed until confirmed.
 */
async function benchLanes(pool: Pool, schema: string): Promise<{ one: number; four: number }> {
  const node = await new AnvilNode({ chainId: 84532, blockTime: 1 }).start();
  try {
    const { client, contracts, mint } = await onChain(node, pool, schema);
    // The chain service's own column (its migration): what each send is for, which the lanes look up.
    await pool.query(`alter table ${schema}.chain_sends add column kind text`);
    await mint(hot.address, BigInt(LANE_SENDS) * 20n);
    const custody = HdCustody.development();
    const queueOf = (lane: number) =>
      new SendQueue({
        schema,
        pool,
        chain: 'base',
        chainId: 84532,
        client,
        signer: lane === 0 ? hot : custody.signer(lanePath(evmPath("m/44'/60'/1'/0/0"), lane)),
        confirmations: 1,
        stuckAfterMs: 60_000,
        maxFeePerGas: parseEther('0.001'),
        logger: QUIET,
        maxPending: LANE_MAX_PENDING,
        ...(lane > 0 && { dependsOn: [hot.address] }),
      });
    const queues = Array.from({ length: LANES }, (_, lane) => queueOf(lane));
    const usdc = { symbol: 'USDC', decimals: 6, address: contracts.tokens.USDC.toLowerCase() as Address };
    // The chain's passes, every 20 ms, until every send is final (and every queue's pass has ended).
    const drain = async (lanes: SendLanes) => {
      for (;;) {
        await lanes.tick([], (_queue, error) => {
          throw error;
        });
        const { rows } = await pool.query<{ open: string }>(`select count(*) as open from ${schema}.chain_sends where status in ('queued', 'pending')`);
        if (rows[0].open === '0') return lanes.idle();
        await sleep(20);
      }
    };
    const run = async (lanes: SendLanes, label: string): Promise<number> => {
      const started = performance.now();
      for (let i = 0; i < LANE_SENDS; i++) {
        const { queue, request } = await lanes.route(pool, usdc, false, outsider.address, 1n);
        await queue.enqueue(pool, `bench:${label}:${i}`, request, 'transfer');
      }
      await drain(lanes);
      return LANE_SENDS / ((performance.now() - started) / 1000);
    };
    const one = await run(new SendLanes({ schema, chain: 'base', pool, queues: queues.slice(0, 1), gas: 0n }), 'one');
    // The lanes made ready as the chain's leader does (their allowances and gas, sent by the hot wallet), then used.
    const four = new SendLanes({ schema, chain: 'base', pool, queues, gas: parseEther('1') });
    const sends: LaneSends = {
      enqueueGas: (db, key, request) => queues[0]!.enqueue(db, key, request, 'gas'),
      approveSpender: async (db, spender, token) => {
        const data = encodeFunctionData({ abi: TestToken.abi, functionName: 'approve', args: [spender, maxUint256] });
        await queues[0]!.enqueue(db, `approve:${spender}:${token.address}`, { to: token.address, data }, 'approve');
      },
      balanceOf: (holder) => client.getBalance({ address: holder }),
    };
    await four.maintain([usdc], sends);
    await drain(four);
    return { one, four: await run(four, 'four') };
  } finally {
    await node.stop();
  }
}

/** Deposits by an outside wallet on a chain with 1-second blocks: from inclusion to credit, beside inclusion to depth. */
async function benchDeposits(pool: Pool, schema: string): Promise<{ toDepth: number[]; toCredit: number[] }> {
  const node = await new AnvilNode({ chainId: 84532, blockTime: 1 }).start();
  let running = true;
  try {
    const { client, contracts, mint } = await onChain(node, pool, schema);
    await mint(outsider.address, BigInt(DEPOSITS) * 100n);
    const credited = new Map<string, number>();
    const address = depositAddressOf(contracts.forwarderFactory, 'wal_bench');
    const watcher = new DepositWatcher({
      schema,
      pool,
      chain: 'base',
      client,
      tokens: [contracts.tokens.USDC],
      native: false,
      confirmations: DEPTH,
      logger: QUIET,
      onCredit: async (_tx, deposit) => void credited.set(deposit.txHash, performance.now()),
    });
    await watcher.watch(pool, address, 'wal_bench');
    // The chain service's loop: a tick, a short pause, again.
    const loop = (async () => {
      while (running) {
        await watcher.tick();
        await sleep(100);
      }
    })();
    const wallet = createWalletClient({ account: outsider, transport: http(node.rpcUrl) });
    const toDepth: number[] = [];
    const toCredit: number[] = [];
    const one = async () => {
      const hash = await wallet.writeContract({
        chain: null,
        address: contracts.tokens.USDC,
        abi: TestToken.abi,
        functionName: 'transfer',
        args: [address, 100n],
      });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
      const included = performance.now();
      while ((await client.getBlockNumber({ cacheTime: 0 })) < receipt.blockNumber + BigInt(DEPTH - 1)) await sleep(10);
      toDepth.push(performance.now() - included);
      while (!credited.has(hash)) await sleep(10);
      toCredit.push(credited.get(hash)! - included);
    };
    // Sent one after the other (one sender's nonces), each followed to its credit.
    for (let i = 0; i < DEPOSITS; i++) await one();
    running = false;
    await loop;
    return { toDepth: toDepth.sort((a, b) => a - b), toCredit: toCredit.sort((a, b) => a - b) };
  } finally {
    running = false;
    await node.stop();
  }
}

/**
 * Managed wallets' smart accounts on one anvil node (a block per transaction) with a real bundler (@pimlico/alto):
 * USER_OPERATIONS sponsored token transfers, one per account (deployed beforehand), submitted at once and followed
 * until each has landed, beside the same transfers sent by one plain account; and the gas of one sponsored swap
 * (approve, swap through the router and the fee to the treasury, batched) beside a plain account's approve and swap.
 */
async function benchUserOperations(): Promise<{ plainPerSecond: number; perSecond: number; plainSwapGas: bigint; sponsoredSwapGas: bigint }> {
  const node = await new AnvilNode({ chainId: 84532 }).start();
  let bundler: AltoBundler | undefined;
  try {
    const chain = defineChain({
      id: 84532,
      name: 'base',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [node.rpcUrl] } },
    });
    const client = createPublicClient({ chain, transport: http(node.rpcUrl) }) as PublicClient;
    const wallet = (account: typeof faucet) => createWalletClient({ account, chain, transport: http(node.rpcUrl) });
    const custody = HdCustody.development();
    const spec = testContractsOf(getChain('base'), faucet.address, hot.address, faucet.address);
    const platform = await deployPlatformContracts(client, wallet(faucet), spec, parseEther('100'));
    await seedPools(client, wallet(faucet), spec.pools, platform.dex);
    const paymasterSigner = custody.signer(evmPath("m/44'/60'/4338'/0/1"));
    const contracts = await deploySmartAccountContracts(
      client,
      wallet(faucet),
      wallet(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 4 })),
      paymasterSigner.address,
      parseEther('100'),
    );
    bundler = await new AltoBundler({ rpcUrl: node.rpcUrl, entryPoint: contracts.entryPoint, port: await freePort() }).start();
    const operations = new UserOperations(
      client,
      bundler.url,
      contracts,
      sponsorship({ paymaster: contracts.paymaster, signer: paymasterSigner, chainId: 84532, validForSeconds: 600 }),
    );
    const usdc = platform.tokens.USDC;
    const mint = async (to: Address, amount: bigint) =>
      client.waitForTransactionReceipt({
        hash: await wallet(faucet).writeContract({ address: usdc, abi: TestToken.abi, functionName: 'mint', args: [to, amount] }),
        pollingInterval: 20,
      });
    const transfer = (amount: bigint) => ({
      to: usdc,
      data: encodeFunctionData({ abi: TestToken.abi, functionName: 'transfer', args: [outsider.address, amount] }),
    });
    const landAll = async (hashes: Hex[], fromBlock: bigint) => {
      const deadline = Date.now() + 120_000;
      for (const hash of hashes)
        while (!(await operations.landed(hash, fromBlock))) {
          if (Date.now() > deadline) throw new Error(`UserOperation ${hash} did not land within 120 s: see the bundler`);
          await sleep(20);
        }
    };

    const accounts = await Promise.all(
      Array.from({ length: USER_OPERATIONS }, (_, i) =>
        simpleAccount({ client, contracts, chainId: 84532, owner: custody.derived(accountOwnerPath(`wal_bench_${i}`)), salt: accountSalt(`wal_bench_${i}`) }),
      ),
    );
    // Each account funded and deployed by a first operation, so that the measured ones are a wallet's everyday operation.
    let fromBlock = await client.getBlockNumber();
    const deployed: Hex[] = [];
    for (const [i, account] of accounts.entries()) {
      await mint(await account.getAddress(), 1_000n);
      const { hash, operation } = await operations.prepare(account, [transfer(1n)], `bench:deploy:${i}`);
      await operations.submit(operation);
      deployed.push(hash);
    }
    await landAll(deployed, fromBlock);

    // Baseline: the same transfers from one plain account, viem's sendTransaction one after the other.
    await mint(plainSender.address, 1_000n);
    let started = performance.now();
    let last: Hex = '0x';
    for (let i = 0; i < USER_OPERATIONS; i++) last = await wallet(plainSender).sendTransaction({ to: usdc, data: transfer(1n).data });
    await client.waitForTransactionReceipt({ hash: last, pollingInterval: 20 });
    const plainPerSecond = USER_OPERATIONS / ((performance.now() - started) / 1000);

    fromBlock = await client.getBlockNumber();
    started = performance.now();
    const measured = await Promise.all(
      accounts.map(async (account, i) => {
        const { hash, operation } = await operations.prepare(account, [transfer(1n)], `bench:transfer:${i}`);
        await operations.submit(operation);
        return hash;
      }),
    );
    await landAll(measured, fromBlock);
    const perSecond = USER_OPERATIONS / ((performance.now() - started) / 1000);

    // One swap of 100 USDC to CNGN: a plain account approves and swaps; an account batches approve, swap and the fee.
    const amountIn = 100_000_000n;
    const swap = (to: Address) =>
      routerSwapCall(platform.dex, { fromToken: 'USDC', toToken: 'CNGN', amountIn, minimumOut: 1n, to, deadline: BigInt(Math.floor(Date.now() / 1000) + 600) });
    const approve = { to: usdc, data: encodeFunctionData({ abi: TestToken.abi, functionName: 'approve', args: [platform.dex.router, amountIn] }) };
    await mint(plainSender.address, amountIn);
    let plainSwapGas = 0n;
    for (const call of [approve, swap(plainSender.address)]) {
      const receipt = await client.waitForTransactionReceipt({ hash: await wallet(plainSender).sendTransaction(call), pollingInterval: 20 });
      if (receipt.status !== 'success') throw new Error(`the plain swap's ${call === approve ? 'approve' : 'swap'} reverted`);
      plainSwapGas += receipt.gasUsed;
    }
    const swapper = accounts[0]!;
    await mint(await swapper.getAddress(), amountIn + 1_000n);
    fromBlock = await client.getBlockNumber();
    const { hash, operation } = await operations.prepare(swapper, [approve, swap(await swapper.getAddress()), transfer(1_000n)], 'bench:swap');
    await operations.submit(operation);
    await landAll([hash], fromBlock);
    const landed = (await operations.landed(hash, fromBlock))!;
    if (!landed.success) throw new Error(`the sponsored swap reverted: ${revertDataReason(landed.revertReason)}`);
    return { plainPerSecond, perSecond, plainSwapGas, sponsoredSwapGas: landed.actualGasUsed };
  } finally {
    await bundler?.stop();
    await node.stop();
  }
}

export async function benchChain(): Promise<BenchSection[]> {
  // Run alone on a fresh machine, the bench database may not exist yet (the other benches' services create it).
  await ensureDatabase(process.env.DATABASE_URL!);
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
  const schema = `chain_bench_${Date.now().toString(36)}`;
  try {
    const sends = await benchSends(pool, `${schema}_s`);
    const deposits = await benchDeposits(pool, `${schema}_d`);
    const lanes = await benchLanes(pool, `${schema}_l`);
    const userOperations = await benchUserOperations();
    const viemLabel = "viem's sendTransaction loop, same node";
    const depthLabel = `the chain reaching depth ${DEPTH}`;
    return [
      {
        title: `Chain: ${SENDS} ERC-20 transfers from one hot wallet (anvil, a block per transaction)`,
        command: 'npm run bench:chain',
        rows: [
          {
            measure: 'sends per second, queued until confirmed',
            baselineLabel: viemLabel,
            baseline: sends.baseline,
            result: sends.result,
            unit: 'sends/s',
            better: 'higher',
            target: '≥ 50%',
          },
        ],
        notes: ['each queued send is recorded in PostgreSQL (nonce under a row lock, signed bytes) before it is broadcast, and followed to its receipt'],
      },
      {
        title: `Chain: ${LANE_SENDS} ERC-20 transfers of one chain through its send lanes (anvil, 1-second blocks)`,
        command: 'npm run bench:chain',
        rows: [
          {
            measure: `sends per second, ${LANES} lanes`,
            baselineLabel: 'the hot wallet alone (1 lane)',
            baseline: lanes.one,
            result: lanes.four,
            unit: 'sends/s',
            better: 'higher',
            target: '≥ 300% (3×)',
          },
        ],
        notes: [
          `each lane has at most ${LANE_MAX_PENDING} sends signed and not yet mined (CHAIN_LANE_MAX_PENDING's default); a lane's transfer is a transferFrom of the hot wallet's tokens, routed to the ready lane with the fewest open sends`,
        ],
      },
      {
        title: `Chain: ${DEPOSITS} deposits by an outside wallet, confirmation depth ${DEPTH}, 1-second blocks`,
        command: 'npm run bench:chain',
        rows: [
          {
            measure: 'inclusion → credited, p50',
            baselineLabel: depthLabel,
            baseline: percentile(deposits.toDepth, 50),
            result: percentile(deposits.toCredit, 50),
            unit: 'ms',
            better: 'lower',
          },
          {
            measure: 'inclusion → credited, p99',
            baselineLabel: depthLabel,
            baseline: percentile(deposits.toDepth, 99),
            result: percentile(deposits.toCredit, 99),
            unit: 'ms',
            better: 'lower',
            target: 'within one block (1,000 ms) of the baseline',
          },
        ],
        notes: ['the watcher ticks every 100 ms, as in a loop; a deposit is credited once in the transaction that confirms it'],
      },
      {
        title: `Chain: managed wallets' smart accounts, ${USER_OPERATIONS} sponsored UserOperations through a real bundler (@pimlico/alto; anvil, a block per transaction)`,
        command: 'npm run bench:chain',
        rows: [
          {
            measure: 'UserOperations per second, submitted at once until landed (one ERC-20 transfer each, each from its own account)',
            baselineLabel: 'the same transfers from one plain account, one after the other',
            baseline: userOperations.plainPerSecond,
            result: userOperations.perSecond,
            unit: 'ops/s',
            better: 'higher',
          },
          {
            measure: 'gas of a sponsored swap (approve, swap and the fee to the treasury: one UserOperation)',
            baselineLabel: "a plain account's approve and swap (two transactions)",
            baseline: Number(userOperations.plainSwapGas),
            result: Number(userOperations.sponsoredSwapGas),
            unit: 'gas',
            better: 'lower',
          },
        ],
        notes: [
          "the operation's gas is the EntryPoint's actualGasUsed (the account's and the paymaster's checks, the calls, the bundle's share), which the paymaster pays",
          'each operation is prepared (gas estimated by the bundler, sponsored, signed by its owner) and submitted concurrently; the bundler puts one operation per sender in a bundle',
        ],
      },
    ];
  } finally {
    for (const suffix of ['_s', '_d', '_l']) await pool.query(`drop schema if exists ${schema}${suffix} cascade`);
    await pool.end();
  }
}

if (require.main === module) runAlone('bench:chain', benchChain);
