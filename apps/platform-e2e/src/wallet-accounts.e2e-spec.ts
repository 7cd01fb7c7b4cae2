import { createPublicClient, createTestClient, erc20Abi, getAddress, http, parseUnits, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Pool } from 'pg';
import { makeNuban } from '@ramp/banking';
import { Config } from '@ramp/config';
import { resolveChains } from '@ramp/evm';
import { dec } from '@ramp/money';
import {
  ApiClient,
  createKey,
  eventually,
  ledgerCheck,
  poolTrader,
  startServices,
  stopAll,
  TEST_DATABASE_URL,
  type ServiceProcess,
  type TestKey,
} from '@ramp/testing';

/**
 * Managed wallets whose address is their own smart account (WALLET_ACCOUNTS), through the API with every service: a
 * swap, an on-ramp and a custodial off-ramp move the wallet's funds in its account on chain, so that the balance the API
 * shows is, token by token, what the account holds.
 */
describe('platform - wallets on smart accounts: the API balance is the account on chain', () => {
  const base = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS').find((chain) => chain.chain === 'base')!;
  const client = createPublicClient({ transport: http(base.rpcUrl) });
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let key: TestKey;
  let tokens: Record<string, { contractAddress: Address; decimals: number }>;
  let pool: Pool;

  beforeAll(async () => {
    services = await startServices(['quote', 'ledger', 'ramp', 'swap-transfer', 'gateway'], {
      WALLET_ACCOUNTS: 'true',
      SANDBOX_STEP_DELAY_MS: '50',
      CHAIN_RECONCILE_INTERVAL_MS: '300',
      // A bridge deposit the relayer does not fill is refunded this soon after it (the failed transfer below).
      CHAIN_BRIDGE_FILL_SECONDS: '10',
    });
    key = await createKey({ plan: 'enterprise' });
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, key.apiKey);
    const network = (await api.get('/transfer/chains')).body.data.find((chain: any) => chain.chain === 'base');
    tokens = Object.fromEntries(network.tokens.map((token: any) => [token.symbol, { ...token, contractAddress: getAddress(token.contractAddress) }]));
    pool = new Pool({ connectionString: TEST_DATABASE_URL });
  }, 60_000);

  afterAll(async () => {
    await pool.end();
    await stopAll(services.values());
  });

  const onChain = (symbol: string, holder: Address) =>
    client.readContract({ address: tokens[symbol]!.contractAddress, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
  /** A wallet on base whose address is its account, funded by a real faucet transfer. */
  const accountWallet = async (usdc: string) => {
    const wallet = (await api.post('/wallets', { chain: 'base' })).body.data;
    const { rows } = await pool.query(`select kind from chain.deposit_addresses where chain = 'test-base' and address = $1`, [wallet.address.toLowerCase()]);
    expect(rows[0]?.kind).toBe('account');
    expect((await api.post(`/sandbox/wallets/${wallet.walletId}/fund`, { tokenSymbol: 'USDC', amount: usdc })).status).toBe(200);
    return wallet as { walletId: string; address: Address };
  };
  /** Every token of the wallet: its balance in the API (available and held) is what its account holds, to the base unit. */
  const expectBalancesOnChain = async (wallet: { walletId: string; address: Address }, symbols: string[]) => {
    const view = (await api.get(`/wallets/${wallet.walletId}`)).body.data;
    for (const symbol of symbols) {
      const balance = view.balances.find((entry: any) => entry.tokenSymbol === symbol) ?? { available: '0', held: '0' };
      const booked = parseUnits(dec(balance.available).add(balance.held).toFixed(), tokens[symbol]!.decimals);
      expect({ symbol, onChain: await onChain(symbol, wallet.address) }).toEqual({ symbol, onChain: booked });
    }
    return view;
  };
  /** The wallet's `symbol` on chain is what its balance shows, all of it available (nothing held), and the books agree with the chains. */
  const expectAvailableOnChain = async (wallet: { walletId: string; address: Address }, symbol: string, available: string) => {
    const view = await expectBalancesOnChain(wallet, [symbol]);
    expect(view.balances.find((entry: any) => entry.tokenSymbol === symbol)).toMatchObject({ available, held: '0' });
    const check = await ledgerCheck();
    expect(check.chains.find((environment) => environment.environment === 'test')!.drifts).toEqual([]);
  };
  const settled = async (path: string) =>
    (
      await eventually(
        () => api.get(path),
        (response) => response.body.data.status !== 'pending',
        60_000,
        100,
      )
    ).body.data;

  it('a swap spends from the account in one sponsored operation (approve, swap, fee) and its output lands in the account', async () => {
    const wallet = await accountWallet('100');
    const quote = (await api.post('/swap/quote', { fromToken: 'USDC', toToken: 'CNGN', amount: '40', fromChain: 'base', toChain: 'base' })).body.data;
    const started = await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId: wallet.walletId });
    expect(started.status).toBe(201);
    const done = await settled(`/swap/${started.body.data.id}`);
    expect(done.status).toBe('completed');
    const [step] = done.route.steps;
    expect(step).toMatchObject({ kind: 'swap', settlement: 'onchain', status: 'completed', userOperationHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    // The step's operation is the one its bundle carried: the EntryPoint's event names it, the account as its sender.
    const { rows: operations } = await pool.query(
      `select user_operation_hash, tx_hash, sender from chain.account_operations where chain = 'test-base' and idempotency_key = $1`,
      [`${started.body.data.id}:leg:0`],
    );
    expect(operations).toEqual([{ user_operation_hash: step.userOperationHash, tx_hash: step.transactionHash, sender: wallet.address.toLowerCase() }]);
    // The step's hash is the bundle that carried the account's operation: the account is deployed, and holds no gas.
    const receipt = await client.getTransactionReceipt({ hash: step.transactionHash });
    expect(receipt.status).toBe('success');
    expect(await client.getCode({ address: wallet.address })).toMatch(/^0x[0-9a-f]+$/);
    expect(await client.getBalance({ address: wallet.address })).toBe(0n);
    const view = await expectBalancesOnChain(wallet, ['USDC', 'CNGN']);
    expect(view.balances.find((entry: any) => entry.tokenSymbol === 'USDC')).toMatchObject({ available: '60', held: '0' });
    expect(await onChain('CNGN', wallet.address)).toBeGreaterThan(0n);
    // Its gas was the paymaster's: booked as the platform's expense against the organization, to the wei the
    // operation's send.finished says, and counted in the metric per organization.
    const { rows: finished } = await pool.query(
      `select data->'account'->>'sponsoredGasCost' as cost from chain.events where type = 'send.finished' and data->>'idempotencyKey' = $1`,
      [`operation:${started.body.data.id}:leg:0`],
    );
    expect(Number(finished[0].cost)).toBeGreaterThan(0);
    const sponsored = `external:sponsored-gas-test-base-${key.organizationId}`;
    const booked = await eventually(
      async () => (await pool.query(`select amount::text from ledger.balances where account = $1`, [sponsored])).rows[0]?.amount,
      (amount) => amount !== undefined,
      10_000,
      100,
    );
    expect(dec(booked).neg().toFixed()).toBe(dec(finished[0].cost).toFixed());
    const metrics = await (await fetch(`${services.get('ledger')!.url}/metrics`)).text();
    const series = new RegExp(`^ramp_ledger_sponsored_gas\\{[^}]*organization="${key.organizationId}"[^}]*\\} (\\S+)$`, 'm').exec(metrics);
    expect(Number(series?.[1])).toBe(Number(finished[0].cost));
  }, 90_000);

  it("an on-ramp's tokens are transferred into the account (a move within the platform's holdings, never a deposit)", async () => {
    const wallet = await accountWallet('1');
    const quote = (await api.post('/onramp/quote', { amount: '20000', tokenSymbol: 'USDC', chain: 'base' })).body.data;
    const started = await api.post('/onramp/initiate', { quoteId: quote.quoteId, walletId: wallet.walletId });
    expect(started.status).toBe(201);
    expect((await api.post(`/sandbox/onramp/${started.body.data.id}/pay`, {})).status).toBe(200);
    const done = await settled(`/onramp/${started.body.data.id}`);
    expect(done.status).toBe('completed');
    const view = await expectBalancesOnChain(wallet, ['USDC']);
    expect(view.balances.find((entry: any) => entry.tokenSymbol === 'USDC').available).toBe(dec(quote.cryptoAmount).add(1).toFixed());
    const { rows } = await pool.query(`select count(*)::int as n from chain.events where type = 'deposit.credited' and data->>'address' = $1`, [
      wallet.address,
    ]);
    expect(rows[0].n).toBe(1);
  }, 90_000);

  it("a custodial off-ramp swaps the account's tokens to CNGN for the provider; one whose swap fails leaves them all in the account", async () => {
    const wallet = await accountWallet('300');
    const quoteOf = async (amount: string) =>
      (await api.post('/offramp/quote', { amount, tokenSymbol: 'USDC', bankCode: '058', accountNumber: makeNuban('058', '012345678'), chain: 'base' })).body
        .data;
    const paid = await api.post('/offramp/initiate', { quoteId: (await quoteOf('120')).quoteId, walletId: wallet.walletId });
    expect(paid.status).toBe(201);
    const paidView = await settled(`/offramp/${paid.body.data.transactionId}`);
    expect(paidView.status).toBe('completed');
    // Its swap is the account's operation: the hash shows the UserOperation beside the bundle that carried it.
    const { rows: swapOperation } = await pool.query(
      `select user_operation_hash, tx_hash from chain.account_operations where chain = 'test-base' and idempotency_key = $1`,
      [`${paid.body.data.transactionId}:swap`],
    );
    expect(paidView.hashes.find((hash: any) => hash.step === 'swap')).toEqual({
      step: 'swap',
      transactionHash: swapOperation[0].tx_hash,
      settlement: 'onchain',
      userOperationHash: swapOperation[0].user_operation_hash,
    });
    await expectAvailableOnChain(wallet, 'USDC', '180');

    const quote = await quoteOf('100');
    const trader = await poolTrader(api, 'base', base.rpcUrl, 'CNGN', '20000');
    await trader.push();
    try {
      const started = await api.post('/offramp/initiate', { quoteId: quote.quoteId, walletId: wallet.walletId });
      expect(started.status).toBe(201);
      expect(await settled(`/offramp/${started.body.data.transactionId}`)).toMatchObject({ status: 'failed', failureReason: 'SWAP_FAILED' });
    } finally {
      await trader.restore();
    }
    await expectAvailableOnChain(wallet, 'USDC', '180');
  }, 120_000);

  it("a transfer to another chain moves the account's funds to the hot wallet in one operation and bridges them; one the relayer never fills gives them all back to the account", async () => {
    const wallet = await accountWallet('100');
    const transfer = async () => {
      const destinationAddress = privateKeyToAccount(generatePrivateKey()).address;
      const quote = (await api.post('/transfer/quote', { fromChain: 'base', toChain: 'bsc', token: 'USDC', amount: '20', destinationAddress })).body.data;
      const started = await api.post('/transfer/initiate', { quoteId: quote.quoteId, walletId: wallet.walletId });
      expect(started.status).toBe(201);
      return settled(`/transfer/${started.body.data.id}`);
    };
    const filled = await transfer();
    expect(filled.status).toBe('completed');
    // The first step shows the operation that moved the account's funds to the hot wallet (its hash is the fill on bsc).
    expect(filled.route.steps[0]).toMatchObject({ kind: 'bridge', status: 'completed', userOperationHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    await expectAvailableOnChain(wallet, 'USDC', '80');

    expect((await api.post('/sandbox/relayer', { paused: true })).status).toBe(200);
    try {
      const failed = await transfer();
      expect(failed.status).toBe('failed');
    } finally {
      await api.post('/sandbox/relayer', { paused: false });
    }
    await expectAvailableOnChain(wallet, 'USDC', '80');
  }, 120_000);

  it('a custodial off-ramp of CNGN (no swap) takes the CNGN from the account in one operation before the provider is paid', async () => {
    const wallet = (await api.post('/wallets', { chain: 'base' })).body.data as { walletId: string; address: Address };
    expect((await api.post(`/sandbox/wallets/${wallet.walletId}/fund`, { tokenSymbol: 'CNGN', amount: '20000' })).status).toBe(200);
    const quote = (
      await api.post('/offramp/quote', { amount: '15000', tokenSymbol: 'CNGN', bankCode: '058', accountNumber: makeNuban('058', '012345678'), chain: 'base' })
    ).body.data;
    const started = await api.post('/offramp/initiate', { quoteId: quote.quoteId, walletId: wallet.walletId });
    expect(started.status).toBe(201);
    expect((await settled(`/offramp/${started.body.data.transactionId}`)).status).toBe('completed');
    await expectAvailableOnChain(wallet, 'CNGN', '5000');
  }, 90_000);

  it('each wallet is reconciled with its own account to the base unit: one wei its account holds beyond its balance names the wallet until it is gone', async () => {
    const wallet = await accountWallet('25');
    const testChains = (check: Awaited<ReturnType<typeof ledgerCheck>>) => check.chains.find((environment) => environment.environment === 'test')!;
    const walletDrifts = async () =>
      Number((/^ramp_ledger_wallet_drift_assets(?:\{[^}]*\})? (\S+)$/m.exec(await (await fetch(`${services.get('ledger')!.url}/metrics`)).text()) ?? [])[1]);
    // After the mixed run above, every wallet whose address is an account was compared with it, and none differs.
    const { rows } = await pool.query(`select count(*)::int as n from chain.deposit_addresses where chain like 'test-%' and kind = 'account'`);
    const settledCheck = await eventually(
      () => ledgerCheck(),
      (check) => check.ok && testChains(check).wallets.inFlight === 0,
      30_000,
      250,
    );
    expect(settledCheck.ok).toBe(true);
    expect(testChains(settledCheck).wallets).toEqual({ reconciled: rows[0].n, inFlight: 0, drifts: [] });
    await eventually(walletDrifts, (value) => value === 0, 10_000, 100);

    // One wei of the native coin appears in the account, from no transfer the platform made or watched.
    const anvil = createTestClient({ mode: 'anvil', transport: http(base.rpcUrl) });
    await anvil.setBalance({ address: wallet.address, value: 1n });
    try {
      const drifting = await eventually(
        () => ledgerCheck(0),
        (check) => testChains(check).wallets.drifts.length > 0,
        10_000,
        100,
      );
      expect(drifting.ok).toBe(false);
      expect(testChains(drifting).wallets.drifts).toEqual([
        {
          walletId: wallet.walletId,
          address: getAddress(wallet.address),
          chain: 'base',
          tokenSymbol: 'ETH',
          books: '0',
          onchain: '0.000000000000000001',
          drift: '0.000000000000000001',
        },
      ]);
      expect(await eventually(walletDrifts, (value) => value === 1, 10_000, 100)).toBe(1);
    } finally {
      await anvil.setBalance({ address: wallet.address, value: 0n });
    }
    const after = await ledgerCheck();
    expect(after.ok).toBe(true);
    expect(testChains(after).wallets.drifts).toEqual([]);
    await eventually(walletDrifts, (value) => value === 0, 10_000, 100);
  }, 90_000);
});
