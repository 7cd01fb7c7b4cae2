import { createPublicClient, createTestClient, createWalletClient, erc20Abi, formatEther, getAddress, http, parseEther, parseUnits, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Pool } from 'pg';
import { Config } from '@ramp/config';
import {
  AppError,
  ChainSendsPause,
  ChainSwap,
  ChainTransfer,
  DepositAddressWatch,
  HoldPlace,
  HoldSettle,
  newId,
  platformTenant,
  WalletCredit,
} from '@ramp/contracts';
import {
  accountOwnerPath,
  accountSalt,
  CANONICAL_ACCOUNT_FACTORY,
  CANONICAL_ENTRY_POINT,
  HdCustody,
  operationFromJson,
  resolveChains,
  SimpleAccountFactory,
  TestToken,
} from '@ramp/evm';
import { createBundlerClient } from 'viem/account-abstraction';
import { connectNats, NatsRpcClient, RpcClient } from '@ramp/messaging';
import { dec } from '@ramp/money';
import {
  ApiClient,
  createKey,
  eventually,
  freePort,
  ledgerCheck,
  runCompiled,
  ServiceProcess,
  startServices,
  stopAll,
  TEST_DATABASE_URL,
  type TestKey,
} from '@ramp/testing';

/**
 * Managed wallets as smart accounts (WALLET_ACCOUNTS), on the local chains and bundlers `npm test` starts: a wallet's
 * address is its own ERC-4337 account, its deposits are credited and stay there, and a transfer from it is one
 * sponsored UserOperation that lands once, booked like a hot-wallet send.
 */
describe('chain service - managed wallets as smart accounts', () => {
  const base = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS').find((chain) => chain.chain === 'base')!;
  const client = createPublicClient({ transport: http(base.rpcUrl) });
  const hot = HdCustody.development().signer(base.hotWalletPath).address;
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let key: TestKey;
  let usdc: Address;
  let pool: Pool;
  let rpc: RpcClient;
  let drain: () => Promise<void>;

  beforeAll(async () => {
    services = await startServices(['quote', 'ledger', 'gateway'], { WALLET_ACCOUNTS: 'true', CHAIN_RECONCILE_INTERVAL_MS: '300' });
    key = await createKey();
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, key.apiKey);
    const chains = (await api.get('/transfer/chains')).body.data;
    usdc = getAddress(chains.find((chain: any) => chain.chain === 'base').tokens.find((token: any) => token.symbol === 'USDC').contractAddress);
    pool = new Pool({ connectionString: TEST_DATABASE_URL });
    const nc = await connectNats({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' }, 'wallet-accounts-test');
    rpc = new RpcClient(new NatsRpcClient(nc, process.env.EVENTS_NAMESPACE), 10_000);
    drain = () => nc.drain();
  }, 60_000);

  afterAll(async () => {
    await drain();
    await pool.end();
    await stopAll(services.values());
  });

  const usdcOf = (holder: string) => client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [holder as Address] });
  const available = async (walletId: string) =>
    (await api.get(`/wallets/${walletId}`)).body.data.balances.find((balance: any) => balance.tokenSymbol === 'USDC')?.available;
  /** The wallets this suite made (the ones it books as the steps would, below). */
  const made = new Set<string>();
  const newWallet = async () => {
    const wallet = (await api.post('/wallets', { chain: 'base' })).body.data;
    made.add(wallet.walletId);
    return wallet;
  };
  /** A funded account wallet on base: its view. */
  const fundedWallet = async (amount: string) => {
    const wallet = await newWallet();
    const funded = await api.post(`/sandbox/wallets/${wallet.walletId}/fund`, { tokenSymbol: 'USDC', amount });
    expect(funded.status).toBe(200);
    return wallet;
  };
  const testOf = (check: Awaited<ReturnType<typeof ledgerCheck>>) => check.chains.find((environment) => environment.environment === 'test')!;
  /**
   * This suite drives the chain service as a route's steps do, without the steps: what they would book for a wallet (a
   * hold captured for what left its account, a credit for what the platform moved into it) is booked here, from the
   * reconciliation's drifts of this suite's wallets, so that each wallet reconciles with its account again (ledger:check
   * compares each one). The platform's wallet-accounts suite shows the steps booking it themselves.
   */
  const bookAsTheSteps = async () => {
    // Whatever is still on its way to a wallet settles first; one of another suite's that never does (in flight is a count
    // of every wallet) does not hold this suite's up: after 20 s its wallets are booked as they stand.
    const check = await eventually(
      () => ledgerCheck(0),
      (answer) => testOf(answer).wallets.inFlight === 0,
      20_000,
      250,
    ).catch(() => ledgerCheck(0));
    const tenant = { organizationId: key.organizationId, environment: 'test' as const, keyId: key.keyId };
    for (const drift of testOf(check).wallets.drifts.filter((entry) => made.has(entry.walletId))) {
      const amount = dec(drift.drift).abs().toFixed();
      const terms = { walletId: drift.walletId, tokenSymbol: drift.tokenSymbol, amount };
      if (dec(drift.drift).gt(0)) {
        await rpc.call(WalletCredit.contract, tenant, { entryId: newId('txn'), ...terms, source: 'route-execution' });
      } else {
        const holdId = newId('txn');
        await rpc.call(HoldPlace.contract, tenant, { holdId, ...terms });
        await rpc.call(HoldSettle.contract, tenant, { holdId, outcome: 'capture', destination: 'route-execution' });
      }
    }
  };
  afterEach(bookAsTheSteps, 90_000);
  const swapTransfer = platformTenant('test', 'swap-transfer');
  /** A transfer as a route's leg asks it (a key and a transaction of its own), from a wallet's account with `fromWallet`. */
  const request = (terms: Partial<ChainTransfer.Request>): ChainTransfer.Request => ({
    environment: 'test',
    chain: 'base',
    idempotencyKey: `${newId('txn')}:leg:0`,
    to: privateKeyToAccount(generatePrivateKey()).address,
    tokenSymbol: 'USDC',
    amount: '1',
    account: 'route-execution',
    paysOut: newId('txn'),
    organizationId: key.organizationId,
    ...terms,
  });
  const fromWallet = (walletId: string, terms: Partial<ChainTransfer.Request>) => request({ fromWallet: walletId, ...terms });
  const transfer = (terms: Partial<ChainTransfer.Request>) => rpc.call(ChainTransfer.contract, swapTransfer, request(terms));
  const final = (terms: ChainTransfer.Request) =>
    eventually(
      () => rpc.call(ChainTransfer.contract, swapTransfer, terms),
      (answer) => answer.status === 'confirmed' || answer.status === 'failed',
      60_000,
      250,
    );

  it("gives a new wallet its own account as its address (the factory's, before it is deployed), credits its deposits and leaves them there", async () => {
    const wallet = await fundedWallet('50');
    const owner = HdCustody.development().derived(accountOwnerPath(wallet.walletId)).address;
    const expected = await client.readContract({
      address: CANONICAL_ACCOUNT_FACTORY,
      abi: SimpleAccountFactory.abi,
      functionName: 'getAddress',
      args: [owner, accountSalt(wallet.walletId)],
    });
    expect(wallet.address).toBe(expected);
    expect(await available(wallet.walletId)).toBe('50');
    // Past the sweep delay (3 s): nothing swept, nothing scheduled, and the account holds the deposit, undeployed.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(await usdcOf(wallet.address)).toBe(parseUnits('50', 6));
    const { rows } = await pool.query(
      `select (select count(*)::int from chain.sweeps where chain = 'test-base' and address = $1) as sweeps,
              (select count(*)::int from chain.sweeps_due where chain = 'test-base' and address = $1) as due,
              (select kind from chain.deposit_addresses where chain = 'test-base' and address = $1) as kind`,
      [wallet.address.toLowerCase()],
    );
    expect(rows[0]).toEqual({ sweeps: 0, due: 0, kind: 'account' });
    expect(await client.getCode({ address: wallet.address })).toBeUndefined();
    // The owner asked for the other kind is refused: a wallet keeps the address it was given.
    const other = await rpc
      .call(DepositAddressWatch.contract, platformTenant('test', 'ledger'), { environment: 'test', chain: 'base', owner: `wallet:${wallet.walletId}` })
      .catch((error: unknown) => error);
    expect(other).toBeInstanceOf(AppError);
    expect((other as AppError).field).toBe('kind');
    // Its balance is what its account holds: the reconciliation compares them, and they agree.
    const check = await ledgerCheck();
    expect(testOf(check).wallets.drifts.filter((drift) => drift.walletId === wallet.walletId)).toEqual([]);
    expect(testOf(check).wallets.reconciled).toBeGreaterThan(0);
  }, 60_000);

  it('transfers from the account as one sponsored UserOperation with its fee to the hot wallet: it lands once, deploys the account, and is booked like a hot-wallet send', async () => {
    const wallet = await fundedWallet('50');
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const hotBefore = await usdcOf(hot);
    const terms = fromWallet(wallet.walletId, { to: recipient, amount: '20', fee: '0.5' });
    const [first, second] = await Promise.all([transfer(terms), transfer(terms)]);
    expect(['queued', 'pending']).toContain(first.status);
    expect(['queued', 'pending']).toContain(second.status);
    const done = await final(terms);
    expect(done).toEqual({
      status: 'confirmed',
      transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      userOperationHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    // Asked again: the same operation, nothing more moves.
    expect(await transfer(terms)).toEqual(done);
    expect(await usdcOf(recipient)).toBe(parseUnits('20', 6));
    expect(await usdcOf(wallet.address)).toBe(parseUnits('29.5', 6));
    expect(await usdcOf(hot)).toBe(hotBefore + parseUnits('0.5', 6));
    expect(await client.getCode({ address: wallet.address })).toMatch(/^0x[0-9a-f]+$/);
    // The bundle carried the account's operation, sponsored: the account held no native coin to pay for it.
    expect(await client.getBalance({ address: wallet.address })).toBe(0n);
    const receipt = await client.getTransactionReceipt({ hash: done.transactionHash as `0x${string}` });
    expect(receipt.status).toBe('success');
    // Its send.finished, once: what left the holdings (the transfer), the operation, its sponsored gas.
    const { rows: finished } = await pool.query(`select data from chain.events where type = 'send.finished' and data->>'idempotencyKey' = $1`, [
      `operation:${terms.idempotencyKey}`,
    ]);
    expect(finished).toHaveLength(1);
    expect(finished[0].data).toMatchObject({
      status: 'confirmed',
      transactionHash: done.transactionHash,
      gasCost: '0',
      transfer: { tokenSymbol: 'USDC', amount: '20', to: recipient, account: 'route-execution' },
      account: { walletId: wallet.walletId, userOperationHash: done.userOperationHash, fee: '0.5' },
    });
    expect(Number(finished[0].data.account.sponsoredGasCost)).toBeGreaterThan(0);
    // The fee reached the hot wallet by the platform's own operation: not a treasury deposit.
    const { rows: deposits } = await pool.query(
      `select count(*)::int as n from chain.events where type = 'deposit.credited' and data->>'transactionHash' = $1`,
      [done.transactionHash],
    );
    expect(deposits[0].n).toBe(0);
    // The same key with other terms is refused.
    await expect(transfer({ ...terms, amount: '21' })).rejects.toMatchObject({ reason: 'IDEMPOTENCY_KEY_REUSED' });
    // The chain's books still equal the chain, accounts included.
    await bookAsTheSteps();
    const check = await ledgerCheck();
    expect(check.chains.find((environment) => environment.environment === 'test')!.drifts).toEqual([]);
  }, 120_000);

  it('refuses on bsc an operation signed for base (the chain id is in its hash and in its sponsorship): nothing of the account appears there', async () => {
    const wallet = await fundedWallet('5');
    const terms = fromWallet(wallet.walletId, { amount: '1' });
    expect((await final(terms)).status).toBe('confirmed');
    const { rows } = await pool.query(`select operation from chain.account_operations where chain = 'test-base' and idempotency_key = $1`, [
      terms.idempotencyKey,
    ]);
    // The account's first operation, which deployed it on base: the same factory is at the same address on bsc.
    const operation = operationFromJson(JSON.stringify(rows[0].operation));
    expect(operation.sender).toBe(wallet.address);
    expect(operation.factory).toBe(CANONICAL_ACCOUNT_FACTORY);
    const bsc = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS').find((chain) => chain.chain === 'bsc')!;
    const replay = createBundlerClient({ transport: http(bsc.bundlerUrl!) }).sendUserOperation({ ...operation, entryPointAddress: CANONICAL_ENTRY_POINT });
    await expect(replay).rejects.toThrow(/AA[23]4 signature error/);
    const onBsc = createPublicClient({ transport: http(bsc.rpcUrl) });
    expect(await onBsc.getCode({ address: wallet.address })).toBeUndefined();
  }, 60_000);

  it("credits a transfer from one wallet's account to another's as the other's deposit, and refuses, before anything is signed, a transfer its account cannot cover", async () => {
    const [from, to] = [await fundedWallet('10'), await newWallet()];
    const paid = await final(fromWallet(from.walletId, { to: to.address, amount: '4' }));
    expect(paid.status).toBe('confirmed');
    await eventually(
      () => available(to.walletId),
      (amount) => amount === '4',
    );
    const overdrawn = fromWallet(from.walletId, { to: to.address, amount: '100' });
    const refused = await final(overdrawn);
    expect(refused).toEqual({ status: 'failed', error: expect.stringMatching(/^refused before it was sent: .*(ERC20InsufficientBalance|reverted)/) });
    expect(await usdcOf(from.address)).toBe(parseUnits('6', 6));
    // A wallet that is not an account, a refund or a netted settlement from a wallet: refused, naming the field.
    await expect(transfer({ fromWallet: newId('wal') })).rejects.toMatchObject({ field: 'fromWallet' });
    await expect(transfer({ fromWallet: from.walletId, net: true })).rejects.toMatchObject({ field: 'net' });
    await expect(transfer({ fee: '1' })).rejects.toMatchObject({ field: 'fee' });
    await expect(transfer({ fromWallet: from.walletId, to: from.address })).rejects.toMatchObject({ field: 'to' });
  }, 120_000);

  it("swaps from the account in one operation (approve, swap, fee): its output stays in the account, read from the operation's own logs; a minimum the pools cannot meet is refused before anything is signed", async () => {
    const wallet = await fundedWallet('30');
    const cngn = getAddress(
      (await api.get('/transfer/chains')).body.data.find((chain: any) => chain.chain === 'base').tokens.find((token: any) => token.symbol === 'CNGN')
        .contractAddress,
    );
    const cngnOf = (holder: string) => client.readContract({ address: cngn, abi: erc20Abi, functionName: 'balanceOf', args: [holder as Address] });
    const hotBefore = await usdcOf(hot);
    const swap = (terms: Partial<ChainSwap.Request>): ChainSwap.Request => ({
      environment: 'test',
      chain: 'base',
      idempotencyKey: `${newId('txn')}:leg:0`,
      fromWallet: wallet.walletId,
      fromToken: 'USDC',
      toToken: 'CNGN',
      amountIn: '10',
      minimumOut: '1',
      fee: '0.25',
      recipient: wallet.address,
      account: 'route-execution',
      paysOut: newId('txn'),
      organizationId: key.organizationId,
      ...terms,
    });
    const terms = swap({});
    const done = await eventually(
      () => rpc.call(ChainSwap.contract, swapTransfer, terms),
      (answer) => answer.status === 'confirmed' || answer.status === 'failed',
      60_000,
      250,
    );
    expect(done).toEqual({
      status: 'confirmed',
      transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      userOperationHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      amountOut: expect.stringMatching(/^\d+(\.\d+)?$/),
    });
    expect(await cngnOf(wallet.address)).toBe(parseUnits(done.amountOut!, 6));
    expect(await usdcOf(wallet.address)).toBe(parseUnits('19.75', 6));
    expect(await usdcOf(hot)).toBe(hotBefore + parseUnits('0.25', 6));
    const { rows } = await pool.query(`select data from chain.events where type = 'send.finished' and data->>'idempotencyKey' = $1`, [
      `operation:${terms.idempotencyKey}`,
    ]);
    expect(rows.map((row) => row.data.swap)).toEqual([
      { fromToken: 'USDC', amountIn: '10', toToken: 'CNGN', amountOut: done.amountOut, to: wallet.address, intoHotWallet: true, account: 'route-execution' },
    ]);
    // The output reached the account by its own operation: no deposit credited for it.
    const { rows: credited } = await pool.query(
      `select count(*)::int as n from chain.events where type = 'deposit.credited' and data->>'transactionHash' = $1`,
      [done.transactionHash],
    );
    expect(credited[0].n).toBe(0);
    await expect(rpc.call(ChainSwap.contract, swapTransfer, { ...terms, minimumOut: '2' })).rejects.toMatchObject({ reason: 'IDEMPOTENCY_KEY_REUSED' });

    const greedy = swap({ minimumOut: '1000000000' });
    const refused = await eventually(
      () => rpc.call(ChainSwap.contract, swapTransfer, greedy),
      (answer) => answer.status === 'failed',
      60_000,
      250,
    );
    expect(refused.error).toMatch(/^refused before it was sent: .*INSUFFICIENT_OUTPUT_AMOUNT/);
    expect(Number(refused.wouldGive)).toBeGreaterThan(0);
    expect(refused.transactionHash).toBeUndefined();
    expect(await usdcOf(wallet.address)).toBe(parseUnits('19.75', 6));
    await bookAsTheSteps();
    const check = await ledgerCheck();
    expect(check.chains.find((environment) => environment.environment === 'test')!.drifts).toEqual([]);
  }, 120_000);

  it('lands an operation once when the chain service is killed (-9) as it submits it: the kept operation is submitted again by the next leader', async () => {
    const wallet = await fundedWallet('10');
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const terms = fromWallet(wallet.walletId, { to: recipient, amount: '3' });
    await transfer(terms);
    await eventually(
      async () =>
        (await pool.query(`select status from chain.account_operations where chain = 'test-base' and idempotency_key = $1`, [terms.idempotencyKey])).rows[0],
      (row) => row?.status === 'submitted',
      30_000,
      10,
    );
    const chain = services.get('chain')!;
    await chain.kill();
    await chain.start();
    const done = await final(terms);
    expect(done.status).toBe('confirmed');
    expect(await usdcOf(recipient)).toBe(parseUnits('3', 6));
    expect(await usdcOf(wallet.address)).toBe(parseUnits('7', 6));
    const { rows } = await pool.query(`select count(*)::int as n from chain.events where type = 'send.finished' and data->>'idempotencyKey' = $1`, [
      `operation:${terms.idempotencyKey}`,
    ]);
    expect(rows[0].n).toBe(1);
  }, 120_000);

  it("moves the hot wallet's funds into a wallet's account (toWallet) within the holdings: never a deposit, never an outflow; for a forwarder wallet nothing moves", async () => {
    const wallet = await fundedWallet('1');
    const into = request({ toWallet: wallet.walletId, to: undefined, amount: '5', account: 'onramp-liquidity' });
    const done = await final(into);
    expect(done).toMatchObject({ status: 'confirmed', transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await usdcOf(wallet.address)).toBe(parseUnits('6', 6));
    const { rows } = await pool.query(
      `select (select count(*)::int from chain.events where type = 'deposit.credited' and data->>'transactionHash' = $1) as credited,
              (select data->'transfer' from chain.events where type = 'send.finished' and data->>'idempotencyKey' = $2) as transfer,
              (select counted from chain.outflows where chain = 'test-base' and send_key = $2) as counted`,
      [done.transactionHash, `transfer:${into.idempotencyKey}`],
    );
    expect(rows[0]).toEqual({
      credited: 0,
      transfer: { tokenSymbol: 'USDC', amount: '5', to: wallet.address, account: 'onramp-liquidity', internal: true },
      counted: false,
    });
    await expect(transfer({ toWallet: wallet.walletId, amount: '5' })).rejects.toMatchObject({ field: 'to' });

    // A forwarder wallet: its funds are the hot wallet's, so into it, or from it to the hot wallet, nothing moves.
    const forwarder = newId('wal');
    const watched = await rpc.call(DepositAddressWatch.contract, platformTenant('test', 'ledger'), {
      environment: 'test',
      chain: 'base',
      owner: `wallet:${forwarder}`,
    });
    expect(watched.kind).toBe('forwarder');
    expect(await transfer({ toWallet: forwarder, to: undefined })).toEqual({ status: 'confirmed' });
    expect(await transfer({ fromWallet: forwarder, to: hot, fee: '0.1' })).toEqual({ status: 'confirmed' });
    expect(await usdcOf(watched.address)).toBe(0n);
    await bookAsTheSteps();
    const check = await ledgerCheck();
    expect(check.chains.find((environment) => environment.environment === 'test')!.drifts).toEqual([]);
  }, 120_000);

  it("sends back, on an operator's word (npm run chain:ops -- return-token), all an account holds of a token the chain does not list, once; a listed token is refused with the reason", async () => {
    const wallet = await fundedWallet('5');
    // Someone sends the account a token the platform does not know: nothing credits it, and nothing else moves it.
    const deployer = privateKeyToAccount(generatePrivateKey());
    await createTestClient({ mode: 'anvil', transport: http(base.rpcUrl) }).setBalance({ address: deployer.address, value: parseEther('1') });
    const deployed = await createWalletClient({ account: deployer, transport: http(base.rpcUrl) }).deployContract({
      abi: TestToken.abi,
      bytecode: TestToken.bytecode,
      args: ['Stray', 'STRAY', 18, deployer.address, wallet.address, parseEther('7.5')],
      chain: null,
    });
    const stray = getAddress((await client.waitForTransactionReceipt({ hash: deployed })).contractAddress!);
    const strayOf = (holder: Address) => client.readContract({ address: stray, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
    const owner = privateKeyToAccount(generatePrivateKey()).address;
    const ops = (...args: string[]) => runCompiled('dist/apps/chain/src/cli/ops.js', args);
    const returnOf = async (token: Address, reference: string) => {
      const ran = await ops('return-token', 'test-base', wallet.walletId, token, owner, '--reference', reference, '--operator', 'ada');
      expect(ran).toMatchObject({ code: 0 });
      return JSON.parse(ran.stdout);
    };
    // The chain's sends paused, so that the return waits where the test can see it.
    const ledger = platformTenant('test', 'ledger');
    await rpc.call(ChainSendsPause.contract, ledger, { environment: 'test', chain: 'base', paused: true, reason: 'wallet-accounts test: a return waits' });
    try {
      // The chain's leader reads the pause at most once a second, between its passes.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(await returnOf(stray, 'ticket-1')).toMatchObject({
        status: 'queued',
        walletId: wallet.walletId,
        account: wallet.address,
        token: stray,
        to: owner,
        operator: 'ada',
      });
      // One return of a token from an account at a time: each sends all of it.
      expect(await ops('return-token', 'test-base', wallet.walletId, stray, owner, '--reference', 'ticket-0', '--operator', 'ada')).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('a return of it from this account is on its way'),
      });
    } finally {
      await rpc.call(ChainSendsPause.contract, ledger, { environment: 'test', chain: 'base', paused: false });
    }
    const done = await eventually(
      () => returnOf(stray, 'ticket-1'),
      (record) => record.status === 'confirmed' || record.status === 'failed',
      60_000,
      500,
    );
    expect(done).toMatchObject({ status: 'confirmed', returned: parseEther('7.5').toString(), transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await strayOf(owner)).toBe(parseEther('7.5'));
    expect(await strayOf(wallet.address)).toBe(0n);
    // One sponsored operation from the account, booked as its organization's sponsored gas and nothing else.
    const { rows } = await pool.query(`select data from chain.events where type = 'send.finished' and data->>'idempotencyKey' = $1`, [
      `operation:return:${wallet.walletId}:${stray.toLowerCase()}:${owner.toLowerCase()}:ticket-1`,
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0].data).toMatchObject({ status: 'confirmed', transactionHash: done.transactionHash, account: { walletId: wallet.walletId } });
    expect(rows[0].data.transfer).toBeUndefined();
    expect(dec(rows[0].data.account.sponsoredGasCost).gt(0)).toBe(true);
    // Asked again, it is the same return; the list shows it.
    expect(await returnOf(stray, 'ticket-1')).toEqual(done);
    expect(JSON.parse((await ops('returns', 'test-base')).stdout)).toContainEqual(done);

    // A token the chain lists is the books': refused when it is prepared, with the reason, and nothing moves.
    const listed = await eventually(
      () => returnOf(usdc, 'ticket-2'),
      (record) => record.status === 'failed',
      60_000,
      500,
    );
    expect(listed.error).toMatch(/is USDC, which base lists/);
    expect(await usdcOf(wallet.address)).toBe(parseUnits('5', 6));
    // Nothing left of the stray token: refused the same way.
    const empty = await eventually(
      () => returnOf(stray, 'ticket-3'),
      (record) => record.status === 'failed',
      60_000,
      500,
    );
    expect(empty.error).toMatch(/holds none of/);
    // A contract that is no token (the accounts' factory): refused, not tried at every pass.
    const notToken = await eventually(
      () => returnOf(CANONICAL_ACCOUNT_FACTORY, 'ticket-4'),
      (record) => record.status === 'failed',
      60_000,
      500,
    );
    expect(notToken.error).toMatch(/does not answer an ERC-20 balanceOf/);
    // Refused before anything is recorded: a malformed address, a wallet whose address is not an account, no operator.
    expect(await ops('return-token', 'test-base', wallet.walletId, 'STRAY', owner, '--reference', 'x', '--operator', 'ada')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('token: must be an address'),
    });
    expect(await ops('return-token', 'test-base', newId('wal'), stray, owner, '--reference', 'x', '--operator', 'ada')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('is not a managed wallet whose address is an account on test-base'),
    });
    expect(await ops('return-token', 'test-base', wallet.walletId, stray, owner, '--reference', 'x')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--operator NAME is required'),
    });
    // The books and the chain agree: the stray token was never the platform's, and its gas is booked as sponsored.
    await bookAsTheSteps();
    expect(testOf(await ledgerCheck()).drifts).toEqual([]);
  }, 180_000);

  it("prepares nothing from an account while the chain's outbound sends are paused, and sends it once they resume", async () => {
    const wallet = await fundedWallet('5');
    const ledger = platformTenant('test', 'ledger');
    await rpc.call(ChainSendsPause.contract, ledger, { environment: 'test', chain: 'base', paused: true, reason: 'wallet-accounts test: the books drift' });
    try {
      // The chain's leader reads the pause at most once a second, between its passes.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const terms = fromWallet(wallet.walletId, { amount: '2' });
      expect((await transfer(terms)).status).toBe('queued');
      // A few passes later: still not prepared, nothing moved.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(await transfer(terms)).toEqual({ status: 'queued' });
      expect(await usdcOf(wallet.address)).toBe(parseUnits('5', 6));
      await rpc.call(ChainSendsPause.contract, ledger, { environment: 'test', chain: 'base', paused: false });
      expect((await final(terms)).status).toBe('confirmed');
      expect(await usdcOf(wallet.address)).toBe(parseUnits('3', 6));
    } finally {
      await rpc.call(ChainSendsPause.contract, ledger, { environment: 'test', chain: 'base', paused: false });
    }
  }, 120_000);

  it("refuses an organization's operation once the gas sponsored for it in the last 24 hours reached its budget, with the reason; another organization's is sponsored", async () => {
    const wallet = await fundedWallet('10');
    // An operation that names no organization would escape every budget: refused before anything is recorded.
    await expect(transfer({ fromWallet: wallet.walletId, organizationId: undefined })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      field: 'organizationId',
    });
    expect((await final(fromWallet(wallet.walletId, { amount: '1', organizationId: key.organizationId }))).status).toBe('confirmed');
    const { rows } = await pool.query(`select sum(gas_cost)::text as spent from chain.account_operations where chain = 'test-base' and organization_id = $1`, [
      key.organizationId,
    ]);
    const spent = formatEther(BigInt(rows[0].spent));
    expect(Number(spent)).toBeGreaterThan(0);
    // The most one of the chain's latest landed operations cost: what an operation on its way is reserved at.
    const reserveNow = async () => {
      const { rows: costliest } = await pool.query(
        `select max(gas_cost)::text as cost from (select gas_cost from chain.account_operations where chain = 'test-base' and gas_cost > 0 order by id desc limit 100) recent`,
      );
      return BigInt(costliest[0].cost);
    };
    // A new organization's budget: two and a half operations' worth.
    const burstBudgetWei = ((await reserveNow()) * 5n) / 2n;
    const burstBudget = formatEther(burstBudgetWei);
    let burstPassed = 0;
    // The chain service again, with a budget for this organization of exactly what was sponsored for it so far.
    const chain = services.get('chain')!;
    await chain.stop();
    const budgeted = new ServiceProcess('chain', await freePort(), {
      WALLET_ACCOUNTS: 'true',
      CHAIN_RECONCILE_INTERVAL_MS: '300',
      CHAIN_SPONSORED_GAS_BUDGETS: JSON.stringify({
        'test-base': { perOrganizationPerDay: '1', organizations: { [key.organizationId]: spent, org_burst: burstBudget } },
      }),
    });
    await budgeted.start();
    try {
      const refusedTerms = fromWallet(wallet.walletId, { amount: '1', organizationId: key.organizationId });
      const refused = await rpc.call(ChainTransfer.contract, swapTransfer, refusedTerms).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ code: 'INVALID_REQUEST', field: 'organizationId' });
      expect((refused as AppError).message).toContain(`in the last 24 hours (${spent} ETH) has reached its budget (${spent} ETH)`);
      // Nothing was recorded for it: nothing is sent, nothing counts against an outflow limit.
      const { rows: recorded } = await pool.query(
        `select count(*)::int as n from chain.account_operations where chain = 'test-base' and idempotency_key = $1`,
        [refusedTerms.idempotencyKey],
      );
      expect(recorded[0].n).toBe(0);
      // Another organization's operation, under everyone's budget (1 ETH a day), is sponsored.
      expect((await final(fromWallet(wallet.walletId, { amount: '1', organizationId: 'org_another' }))).status).toBe('confirmed');
      const metrics = await (await fetch(`${budgeted.url}/metrics`)).text();
      expect(Number((/^ramp_chain_sponsorship_refusals(?:\{[^}]*\})? (\S+)$/m.exec(metrics) ?? [])[1])).toBe(1);

      // After a quiet day (nothing of the chain's landed in the last 24 hours), a burst asked at once: each operation on
      // its way is still reserved at what the chain's last landings cost, so a budget of two and a half operations lets
      // three through (0, 1 and 2 reserved before each) and refuses the fourth (fewer if a landing since cost more).
      // Reserved at 0, as before, all four would pass.
      await pool.query(`update chain.account_operations set created_at = created_at - interval '25 hours' where chain = 'test-base'`);
      const reserve = await reserveNow();
      let expectedPasses = 0;
      while (expectedPasses < 4 && BigInt(expectedPasses) * reserve < burstBudgetWei) expectedPasses += 1;
      expect(expectedPasses).toBeLessThan(4);
      const burst = [1, 2, 3, 4].map(() => fromWallet(wallet.walletId, { amount: '1', organizationId: 'org_burst' }));
      const answers = await Promise.allSettled(burst.map((terms) => rpc.call(ChainTransfer.contract, swapTransfer, terms)));
      const passed = burst.filter((_, i) => answers[i]!.status === 'fulfilled');
      const refusals = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason as AppError] : []));
      expect(passed).toHaveLength(expectedPasses);
      expect(refusals).toHaveLength(4 - expectedPasses);
      expect(refusals[0]).toMatchObject({ code: 'INVALID_REQUEST', field: 'organizationId' });
      expect(refusals[0]!.message).toContain(`reserved for the ${expectedPasses} on their way`);
      for (const terms of passed) expect((await final(terms)).status).toBe('confirmed');
      burstPassed = passed.length;
    } finally {
      await budgeted.stop();
      await chain.start();
    }
    expect(await usdcOf(wallet.address)).toBe(parseUnits('8', 6) - parseUnits(String(burstPassed), 6));
  }, 120_000);
});
