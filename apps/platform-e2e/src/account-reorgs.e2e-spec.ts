import { Client, Pool } from 'pg';
import { createPublicClient, decodeFunctionData, erc20Abi, getAddress, http, parseUnits, type Address, type Hex, type PublicClient } from 'viem';
import { createBundlerClient, entryPoint07Abi } from 'viem/account-abstraction';
import { AltoBundler, CANONICAL_ENTRY_POINT, deployForLocalBundler, NO_CALLS, operationFromJson } from '@ramp/evm';
import {
  AnvilNode,
  ApiClient,
  endUserWith,
  eventually,
  freePort,
  freshStack,
  ledgerCheck,
  poolTrader,
  runCompiled,
  startServices,
  stopAll,
  TEST_DATABASE_URL,
  type ServiceProcess,
} from '@ramp/testing';

/**
 * Reorganisations of a chain whose managed wallets are their own smart accounts (WALLET_ACCOUNTS), on a node, a
 * bundler and a stack of their own (reorgs.e2e-spec.ts covers forwarder wallets, whose deposits are swept): a deposit
 * to an account, credited, then taken out of the chain, is taken back from the wallet's balance (the tokens never left
 * the account, so nothing is the platform's loss); a wallet's operation taken out after it was final lands again,
 * once, from its kept signed copy; one that landed reverted, taken out, is cancelled (its nonce used by an operation
 * with no calls), so that its signed copy can never land. Either way the wallet and its account, and the books and the
 * chain, agree again to the base unit. When the copy lands first all the same (the chain service down meanwhile), the
 * operation is recorded as the chain has it and the wallet's drift from its account is reported.
 */
describe('reorgs - smart-account wallets: a deposit taken back, an operation landed again, the accounts and their books agree', () => {
  const node = new AnvilNode({ chainId: 84532 });
  let bundler: AltoBundler;
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = '/ramp_account_reorgs_test';
  const databaseUrl = url.toString();
  const namespace = 'accountreorgs';
  const env = { DATABASE_URL: databaseUrl, EVENTS_NAMESPACE: namespace };
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let client: PublicClient;
  let pool: Pool;
  let usdc: Address;

  beforeAll(async () => {
    await node.start();
    // The bundler needs its EntryPoint on the chain before it starts.
    await deployForLocalBundler(node.rpcUrl);
    bundler = await new AltoBundler({ rpcUrl: node.rpcUrl, entryPoint: CANONICAL_ENTRY_POINT, port: await freePort() }).start();
    await freshStack(databaseUrl, namespace);
    services = await startServices(['quote', 'ledger', 'ramp', 'swap-transfer', 'notifier', 'gateway'], {
      ...env,
      WALLET_ACCOUNTS: 'true',
      // What an operator is told (an error) is part of what the cases check.
      LOG_LEVEL: 'error',
      CHAIN_RECONCILE_INTERVAL_MS: '300',
      TEST_CHAINS: JSON.stringify({
        base: { rpcUrl: node.rpcUrl, localPort: node.port, bundlerUrl: bundler.url, localBundlerPort: bundler.port },
        bsc: null,
        arbitrum: null,
      }),
    });
    const key = await runCompiled(
      'dist/apps/gateway/src/cli/keys.js',
      ['create', '--org', `Account reorgs ${Date.now()}`, '--env', 'test', '--plan', 'enterprise'],
      {
        DATABASE_URL: databaseUrl,
      },
    );
    expect(key.code).toBe(0);
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, JSON.parse(key.stdout).apiKey);
    client = createPublicClient({ transport: http(node.rpcUrl) }) as PublicClient;
    pool = new Pool({ connectionString: databaseUrl, max: 2 });
    const base = (await api.get('/transfer/chains')).body.data.find((chain: any) => chain.chain === 'base');
    usdc = getAddress(base.tokens.find((token: any) => token.symbol === 'USDC').contractAddress);
  }, 180_000);

  afterAll(async () => {
    await pool?.end();
    await stopAll(services?.values() ?? []);
    await bundler?.stop();
    await node.stop();
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query('drop database if exists ramp_account_reorgs_test with (force)');
    await admin.end();
  });

  const usdcOf = (holder: Address) => client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
  const balance = async (walletId: string) => (await api.get(`/wallets/${walletId}`)).body.data.balances.find((entry: any) => entry.tokenSymbol === 'USDC');
  const account = async (name: string, asset: string) =>
    (await pool.query(`select amount::text from ledger.balances where account = $1 and asset = $2`, [name, asset])).rows[0]?.amount as string | undefined;
  /** Every block from the one holding `hash` up to the head replaced with empty ones: what it held never happened. */
  const reorgFrom = (hash: Hex) => node.reorgOut(hash);
  const check = () => ledgerCheck(20_000, { DATABASE_URL: databaseUrl, EVENTS_NAMESPACE: namespace });
  /** A new wallet on base (its address its account), paid `amount` USDC by an end user given `held`, and credited. */
  const paidAccountWallet = async (held: string, amount: string) => {
    const wallet = (await api.post('/wallets', { chain: 'base' })).body.data as { walletId: string; address: Address };
    const { rows } = await pool.query(`select kind from chain.deposit_addresses where chain = 'test-base' and address = $1`, [wallet.address.toLowerCase()]);
    expect(rows[0]?.kind).toBe('account');
    const { account: user, wallet: userWallet } = await endUserWith(api, 'base', node.rpcUrl, { ETH: '1', USDC: held });
    const paid = await userWallet.writeContract({
      chain: null,
      address: usdc,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [wallet.address, parseUnits(amount, 6)],
    });
    expect((await client.waitForTransactionReceipt({ hash: paid })).status).toBe('success');
    await eventually(
      () => balance(wallet.walletId),
      (entry) => entry?.available === amount,
      30_000,
    );
    return { wallet, user, paid };
  };

  /** The books and the chain, and each wallet and its account, agree to the base unit (`npm run ledger:check`). */
  const expectAgreed = async () => {
    const report = await check();
    const test = report.chains.find((environment) => environment.environment === 'test')!;
    expect(test.drifts).toEqual([]);
    expect(test.wallets.drifts).toEqual([]);
    expect(report.ok).toBe(true);
  };
  /** A swap of 40 USDC for CNGN on base from the wallet `walletId`, started: its id. */
  const startSwap = async (walletId: string): Promise<string> => {
    const quote = (await api.post('/swap/quote', { fromToken: 'USDC', toToken: 'CNGN', amount: '40', fromChain: 'base', toChain: 'base' })).body.data;
    const started = await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId });
    expect(started.status).toBe(201);
    return started.body.data.id;
  };
  /** The swap `id` once it has ended. */
  const swapEnded = async (id: string) =>
    (
      await eventually(
        () => api.get(`/swap/${id}`),
        (response) => !['pending', 'processing'].includes(response.body.data.status),
        60_000,
      )
    ).body.data;
  /** The operation of the swap `id` from its wallet's account (its first leg's), as the chain service records it. */
  const operationOf = async (id: string) =>
    (
      await pool.query(
        `select status, tx_hash, user_operation_hash, error, reorged_at, booked_status, operation from chain.account_operations where chain = 'test-base' and idempotency_key = $1`,
        [`${id}:leg:0`],
      )
    ).rows[0];
  /**
   * Until the bundler is done with the operation `hash` (it has seen its bundle mined). A bundler still waiting for its
   * bundle sends the same bundle again once a reorganisation took it out (alto after about 60 s), as nodes often mine
   * it again on a live chain: a case that takes a bundle out waits for this first, so that it stays out unless the
   * case puts it back (the last case, a copy landing first, does so on purpose).
   */
  const bundlerDoneWith = (hash: Hex) =>
    eventually(
      async () => {
        const response = await fetch(bundler.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'pimlico_getUserOperationStatus', params: [hash] }),
        });
        return ((await response.json()) as { result?: { status: string } }).result?.status;
      },
      (status) => status === 'included' || status === 'reverted' || status === 'failed',
      30_000,
      100,
    );
  /** The outcomes of the `send.finished` events appended for the swap `id`'s operation: what the books were told. */
  const finishedOf = async (id: string) =>
    (
      await pool.query(`select data->>'status' as status from chain.events where type = 'send.finished' and data->>'idempotencyKey' = $1`, [
        `operation:${id}:leg:0`,
      ])
    ).rows;

  it('takes back a reorganised deposit from the wallet whose account it never left: no loss, and the wallet still equals its account', async () => {
    const { wallet, user, paid } = await paidAccountWallet('50', '20');
    // Credited and left in the account: no sweep.
    expect(await usdcOf(wallet.address)).toBe(parseUnits('20', 6));
    const before = await check();
    expect(before.ok).toBe(true);

    await reorgFrom(paid);
    await eventually(
      () => balance(wallet.walletId),
      (entry) => entry?.available === '0',
      30_000,
    );
    expect(await balance(wallet.walletId)).toMatchObject({ available: '0', held: '0' });
    expect(await usdcOf(wallet.address)).toBe(0n);
    expect(await usdcOf(user.address)).toBe(parseUnits('50', 6));
    // The tokens never left the account: what the wallet lost, the chain took back; nothing is the platform's loss.
    expect(await account('external:reorg-loss-test-base', 'base:USDC')).toBeUndefined();
    await expectAgreed();
  }, 120_000);

  it("lands again, once, a wallet's swap operation that a reorganisation took out after it was final: the account and its books agree again", async () => {
    const { wallet } = await paidAccountWallet('100', '100');
    const id = await startSwap(wallet.walletId);
    const done = await swapEnded(id);
    expect(done.status).toBe('completed');
    const [step] = done.route.steps;
    const cngn = getAddress(
      (await api.get('/transfer/chains')).body.data.find((chain: any) => chain.chain === 'base').tokens.find((token: any) => token.symbol === 'CNGN')
        .contractAddress,
    );
    const cngnOf = (holder: Address) => client.readContract({ address: cngn, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
    const swapped = await cngnOf(wallet.address);
    expect(await usdcOf(wallet.address)).toBe(parseUnits('60', 6));

    // The bundle that carried the operation is taken out of the chain: the account holds its 100 USDC again.
    await bundlerDoneWith((await operationOf(id)).user_operation_hash);
    await reorgFrom(step.transactionHash);
    expect(await usdcOf(wallet.address)).toBe(parseUnits('100', 6));
    // Its kept signed copy goes to the bundler again and lands in another bundle; the account is as the books say.
    const relanded = await eventually(
      () => operationOf(id),
      (row) => row?.status === 'confirmed' && row.tx_hash !== null && row.tx_hash !== step.transactionHash,
      60_000,
      250,
    );
    expect(relanded.reorged_at).not.toBeNull();
    expect(await usdcOf(wallet.address)).toBe(parseUnits('60', 6));
    expect(await cngnOf(wallet.address)).toBe(swapped);
    expect(await balance(wallet.walletId)).toMatchObject({ available: '60', held: '0' });
    // Booked once: one send.finished for the operation, whatever its landings.
    expect(await finishedOf(id)).toEqual([{ status: 'confirmed' }]);
    await expectAgreed();
  }, 180_000);

  it("finishes a wallet's operation only in a block the deposit watcher has scanned, on the chain it recorded: a reorganisation it cannot see never leaves one final", async () => {
    const { wallet } = await paidAccountWallet('100', '100');
    const checkpoint = async () =>
      (await pool.query(`select block_number::text from chain.chain_checkpoints where chain = 'test-base'`)).rows[0].block_number as string;
    const scanned = await checkpoint();
    // The watcher takes its node to be behind a block it recorded far ahead, and waits: it scans nothing meanwhile (its
    // node lagging behind a load balancer, as it would see it).
    const ahead = ((await client.getBlockNumber()) + 1_000_000n).toString();
    await pool.query(`insert into chain.chain_blocks (chain, number, hash) values ('test-base', $1, $2)`, [ahead, `0x${'ab'.repeat(32)}`]);
    const landedOf = (id: string) =>
      eventually(
        () => operationOf(id),
        (row) => row?.tx_hash != null,
        30_000,
        100,
      );
    let first: string | undefined;
    let second: string | undefined;
    let block: string | undefined;
    try {
      first = await startSwap(wallet.walletId);
      // Landed at the chain's depth (one confirmation here), and seen landed by a pass: recorded, not final.
      const landed = await landedOf(first);
      expect(landed.status).toBe('submitted');
      expect(await usdcOf(wallet.address)).toBe(parseUnits('60', 6));
      const receipt = await client.getTransactionReceipt({ hash: landed.tx_hash });
      block = receipt.blockNumber.toString();
      // The watcher's records say its block was scanned, but with another hash (what a node on another fork saw).
      await pool.query(`update chain.chain_checkpoints set block_number = $1 where chain = 'test-base'`, [block]);
      await pool.query(`insert into chain.chain_blocks (chain, number, hash) values ('test-base', $1, $2)`, [block, `0x${'cd'.repeat(32)}`]);
      // A second swap lands and is recorded by a pass, which followed the first before it (in id order): not final.
      second = await startSwap(wallet.walletId);
      await landedOf(second);
      expect(await operationOf(first)).toMatchObject({ status: 'submitted', tx_hash: landed.tx_hash });
      expect(['pending', 'processing']).toContain((await api.get(`/swap/${first}`)).body.data.status);
      // The block's hash as recorded is the landing's: the first is final, while the watcher still waits.
      await pool.query(`update chain.chain_blocks set hash = $2 where chain = 'test-base' and number = $1`, [block, receipt.blockHash]);
      expect((await swapEnded(first)).status).toBe('completed');
      expect((await operationOf(second)).status).toBe('submitted');
    } finally {
      // In one transaction, which a watcher's pass reads whole or not at all: it resumes from where it had scanned.
      const restore = await pool.connect();
      try {
        await restore.query('begin');
        await restore.query(`delete from chain.chain_blocks where chain = 'test-base' and number = any($1)`, [[ahead, ...(block ? [block] : [])]]);
        await restore.query(`update chain.chain_checkpoints set block_number = $1 where chain = 'test-base'`, [scanned]);
        await restore.query('commit');
      } finally {
        restore.release();
      }
    }
    // The watcher scans again: the second is final, and both swaps are completed.
    expect((await swapEnded(second)).status).toBe('completed');
    expect(await balance(wallet.walletId)).toMatchObject({ available: '20', held: '0' });
  }, 120_000);

  /**
   * A wallet paid 100 USDC whose swap of 40 for CNGN landed reverted on chain, booked as failed. Blocks are mined by
   * hand meanwhile: the operation's bundle waits in the node's pool, and someone's trade goes before it in its block, so
   * the swap it carries gets less than its minimum (the bundler's simulation passed). With the operation's row as it
   * stands, and its signed copy as anyone can read it from the bundle on chain.
   */
  const revertedSwap = async () => {
    const trader = await poolTrader(api, 'base', node.rpcUrl, 'CNGN', '20000');
    const { wallet } = await paidAccountWallet('100', '100');
    await node.rpc('evm_setAutomine', [false]);
    let id;
    try {
      id = await startSwap(wallet.walletId);
      await eventually(
        () => node.rpc<{ pending: Record<string, Record<string, { to: string | null }>> }>('txpool_content'),
        (content) =>
          Object.values(content.pending).some((sent) => Object.values(sent).some((tx) => tx.to?.toLowerCase() === CANONICAL_ENTRY_POINT.toLowerCase())),
        30_000,
        100,
      );
      await trader.pushPending();
      await node.rpc('evm_mine');
    } finally {
      await node.rpc('evm_setAutomine', [true]);
    }
    expect((await swapEnded(id)).status).toBe('failed');
    const reverted = await operationOf(id);
    expect(reverted).toMatchObject({ status: 'failed', error: expect.stringMatching(/^reverted on chain/) });
    expect(await usdcOf(wallet.address)).toBe(parseUnits('100', 6));
    expect(await balance(wallet.walletId)).toMatchObject({ available: '100', held: '0' });
    await bundlerDoneWith(reverted.user_operation_hash);
    return { wallet, id, reverted, copy: operationFromJson(JSON.stringify(reverted.operation)) };
  };

  it("cancels a wallet's operation that landed reverted and was then taken out of the chain: its signed copy can never land and move what the books say never moved", async () => {
    const { wallet, id, reverted, copy } = await revertedSwap();

    // The block is taken out, the trade with it: the pool is as it was, and the copy, still sponsored, would now swap.
    await reorgFrom(reverted.tx_hash);
    const cancelled = await eventually(
      () => operationOf(id),
      (row) => row?.status === 'failed' && row.tx_hash !== null && row.tx_hash !== reverted.tx_hash,
      60_000,
      250,
    );
    expect(cancelled).toMatchObject({ booked_status: 'failed', error: reverted.error });
    expect(cancelled.reorged_at).not.toBeNull();
    // What landed is the cancellation: the account's operation with the step's nonce and no calls.
    const bundle = await client.getTransaction({ hash: cancelled.tx_hash });
    const { args } = decodeFunctionData({ abi: entryPoint07Abi, data: bundle.input });
    const ran = (args![0] as readonly { sender: Address; nonce: bigint; callData: Hex }[]).find(
      (operation) => getAddress(operation.sender) === getAddress(wallet.address) && operation.nonce === copy.nonce,
    );
    expect(ran?.callData).toBe(NO_CALLS);
    // The step's nonce is used by the cancellation: the copy is refused, by the bundler and by the EntryPoint.
    const bundlerClient = createBundlerClient({ client, transport: http(bundler.url) });
    await expect(bundlerClient.sendUserOperation({ ...copy, entryPointAddress: CANONICAL_ENTRY_POINT })).rejects.toThrow(/AA25|nonce/i);
    expect(await usdcOf(wallet.address)).toBe(parseUnits('100', 6));
    expect(await balance(wallet.walletId)).toMatchObject({ available: '100', held: '0' });
    // Booked once, as failed.
    expect(await finishedOf(id)).toEqual([{ status: 'failed' }]);
    await expectAgreed();
  }, 180_000);

  it('records as the chain has it, and reports, the copy of a reverted operation that lands again before its cancellation: the wallet drifts from its account until an operator acts', async () => {
    const { wallet, id, reverted, copy } = await revertedSwap();
    // The chain service down while the block is taken out and the copy lands: nothing could cancel it first.
    const chain = services.get('chain')!;
    await chain.stop();
    try {
      await reorgFrom(reverted.tx_hash);
      await createBundlerClient({ client, transport: http(bundler.url) }).sendUserOperation({ ...copy, entryPointAddress: CANONICAL_ENTRY_POINT });
      await eventually(
        () => usdcOf(wallet.address),
        (units) => units === parseUnits('60', 6),
        30_000,
      );
    } finally {
      await chain.start();
    }
    // Found landed with its calls run (read from its bundle): recorded as confirmed, the books left as they were.
    const landed = await eventually(
      () => operationOf(id),
      (row) => row?.reorged_at !== null && ['confirmed', 'failed'].includes(row?.status),
      60_000,
      250,
    );
    expect(landed).toMatchObject({ status: 'confirmed', booked_status: 'failed', error: expect.stringMatching(/^booked as failed: reverted on chain/) });
    expect(landed.tx_hash).not.toBe(reverted.tx_hash);
    expect(await finishedOf(id)).toEqual([{ status: 'failed' }]);
    expect(chain.logRecords.some((record) => typeof record.msg === 'string' && record.msg.includes('booked as failed landed again with its calls run'))).toBe(
      true,
    );
    // What shows it: the wallet's books (100) and its account (60) differ, and the check says so.
    expect(await balance(wallet.walletId)).toMatchObject({ available: '100', held: '0' });
    const report = await check();
    const test = report.chains.find((environment) => environment.environment === 'test')!;
    // The 40 USDC it swapped, and the CNGN it got, which the books hold neither of.
    expect(test.wallets.drifts.map((drift) => [drift.walletId, drift.tokenSymbol]).sort()).toEqual([
      [wallet.walletId, 'CNGN'],
      [wallet.walletId, 'USDC'],
    ]);
    expect(test.wallets.drifts.find((drift) => drift.tokenSymbol === 'USDC')).toMatchObject({ books: '100', onchain: '60' });
    // And the chain's: the pools it swapped with are outside the platform's holdings, the account inside them.
    expect(test.drifts.map((drift) => [drift.chain, drift.tokenSymbol]).sort()).toEqual([
      ['base', 'CNGN'],
      ['base', 'USDC'],
    ]);
    expect(report.ok).toBe(false);
  }, 180_000);
});
