import type { NatsConnection } from 'nats';
import { Pool } from 'pg';
import { isValidEvmAddress, toChecksumAddress } from '@ramp/chains';
import { AppError, HoldPlace, HoldSettle, newId, type Tenant } from '@ramp/contracts';
import { connectNats, NatsRpcClient, RpcClient } from '@ramp/messaging';
import { ApiClient, createKey, expectError, startServices, stopAll, type ServiceProcess, type TestKey, rpcFailure } from '@ramp/testing';
import { Journal } from '../journal/journal';

describe('wallets and the ledger - through HTTP and the holds other services use', () => {
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let key: TestKey;
  let nc: NatsConnection;
  let rpc: RpcClient;
  let pool: Pool;
  let tenant: Tenant;

  beforeAll(async () => {
    services = await startServices(['ledger', 'gateway']);
    key = await createKey({ plan: 'enterprise' });
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, key.apiKey);
    nc = await connectNats({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' }, 'wallets-test');
    rpc = new RpcClient(new NatsRpcClient(nc, process.env.EVENTS_NAMESPACE), 5000);
    pool = new Pool({ connectionString: process.env.DATABASE_URL });
    tenant = { organizationId: key.organizationId, environment: 'test', keyId: key.keyId };
  });

  afterAll(async () => {
    await nc.drain();
    await pool.end();
    await stopAll(services.values());
  });

  const newWallet = async (chain = 'base', label?: string) => {
    const response = await api.post('/wallets', label === undefined ? { chain } : { chain, label });
    expect(response.status).toBe(201);
    return response.body.data;
  };
  const fund = (walletId: string, tokenSymbol: string, amount: string) => api.post(`/sandbox/wallets/${walletId}/fund`, { tokenSymbol, amount });
  const balanceOf = (wallet: any, symbol: string) => wallet.balances.find((balance: any) => balance.tokenSymbol === symbol);

  it('creates a smart-account wallet on base or bsc with a stable checksummed address and zero balances', async () => {
    const wallet = await newWallet('base', 'Treasury');
    expect(wallet.walletId).toMatch(/^wal_[0-9A-Z]{26}$/);
    expect(wallet).toMatchObject({ chain: 'base', label: 'Treasury' });
    expect(isValidEvmAddress(wallet.address)).toBe(true);
    expect(wallet.address).toBe(toChecksumAddress(wallet.address));
    expect(wallet.balances.map((balance: any) => balance.tokenSymbol)).toEqual(expect.arrayContaining(['USDC', 'CNGN', 'ETH']));
    for (const balance of wallet.balances) expect(balance).toMatchObject({ available: '0', held: '0' });
    const again = await api.get(`/wallets/${wallet.walletId}`);
    expect(again.body.data.address).toBe(wallet.address);

    const bsc = await newWallet('bsc');
    expect(bsc).not.toHaveProperty('label'); // none given: absent, never null
    expect(bsc.balances.map((balance: any) => balance.tokenSymbol)).toContain('BNB');
    expectError(await api.post('/wallets', { chain: 'ethereum' }), 400, 'INVALID_REQUEST', 'chain');
    expectError(await api.post('/wallets', {}), 400, 'INVALID_REQUEST', 'chain');
    expectError(await api.post('/wallets', { chain: 'base', colour: 'red' }), 400, 'INVALID_REQUEST', 'colour');
  });

  it("lists the tenant's wallets newest first and hides other tenants' wallets", async () => {
    const first = await newWallet();
    const second = await newWallet();
    const page = (await api.get('/wallets?limit=2')).body;
    expect(page.data.map((wallet: any) => wallet.walletId)).toEqual([second.walletId, first.walletId]);
    expect(page.meta).toMatchObject({ page: 1, limit: 2 });
    expect(page.meta.totalPages).toBe(Math.ceil(page.meta.total / 2));
    expectError(await api.get('/wallets?limit=500'), 400, 'INVALID_REQUEST', 'limit');
    expectError(await api.get('/wallets?chain=base'), 400, 'INVALID_REQUEST', 'chain');

    const stranger = await createKey();
    const strangerApi = api.withKey(stranger.apiKey);
    expectError(await strangerApi.get(`/wallets/${first.walletId}`), 404, 'NOT_FOUND');
    expect((await strangerApi.get('/wallets')).body.data.map((wallet: any) => wallet.walletId)).not.toContain(first.walletId);
    expectError(await strangerApi.post(`/sandbox/wallets/${first.walletId}/fund`, { tokenSymbol: 'USDC', amount: '1' }), 404, 'NOT_FOUND');
    expectError(await api.get('/wallets/wal_nope'), 404, 'NOT_FOUND');
    expectError(await api.get(`/wallets/${newId('wal')}`), 404, 'NOT_FOUND');
  });

  it('funds a wallet in the sandbox with validated amounts, for test keys only', async () => {
    const wallet = await newWallet();
    const funded = await fund(wallet.walletId, 'USDC', '250.5');
    expect(funded.status).toBe(200);
    expect(balanceOf(funded.body.data, 'USDC')).toEqual({ tokenSymbol: 'USDC', available: '250.5', held: '0' });
    expect(balanceOf((await fund(wallet.walletId, 'USDC', '0.25')).body.data, 'USDC').available).toBe('250.75');

    expectError(await fund(wallet.walletId, 'BNB', '1'), 400, 'INVALID_REQUEST', 'tokenSymbol');
    expectError(await fund(wallet.walletId, 'USDC', '1.1234567'), 400, 'INVALID_REQUEST', 'amount');
    expectError(await fund(wallet.walletId, 'USDC', '-5'), 400, 'INVALID_REQUEST', 'amount');
    expectError(await fund(wallet.walletId, 'USDC', '1e3'), 400, 'INVALID_REQUEST', 'amount');

    const live = await createKey({ env: 'live' });
    expectError(await api.withKey(live.apiKey).post(`/sandbox/wallets/${wallet.walletId}/fund`, { tokenSymbol: 'USDC', amount: '1' }), 404, 'NOT_FOUND');
  });

  it('holds funds for a transaction, refuses an overdraft with the available balance, and is idempotent by hold id', async () => {
    const wallet = await newWallet();
    await fund(wallet.walletId, 'USDC', '100');
    const overdraft = await rpcFailure(
      rpc.call(HoldPlace.contract, tenant, { holdId: newId('txn'), walletId: wallet.walletId, tokenSymbol: 'USDC', amount: '100.01' }),
    );
    expect(overdraft.code).toBe('INVALID_REQUEST');
    expect(overdraft.field).toBe('amount');
    expect(overdraft.message).toContain('100 USDC');

    const holdId = newId('txn');
    const hold = await rpc.call(HoldPlace.contract, tenant, { holdId, walletId: wallet.walletId, tokenSymbol: 'USDC', amount: '40' });
    expect(hold).toMatchObject({ holdId, status: 'held', amount: '40', chain: 'base', tokenSymbol: 'USDC' });
    expect(await rpc.call(HoldPlace.contract, tenant, { holdId, walletId: wallet.walletId, tokenSymbol: 'USDC', amount: '40' })).toEqual(hold);
    expect((await rpcFailure(rpc.call(HoldPlace.contract, tenant, { holdId, walletId: wallet.walletId, tokenSymbol: 'USDC', amount: '41' }))).code).toBe(
      'CONFLICT',
    );
    expect(balanceOf((await api.get(`/wallets/${wallet.walletId}`)).body.data, 'USDC')).toMatchObject({ available: '60', held: '40' });

    // Released: back to the wallet, once.
    expect((await rpc.call(HoldSettle.contract, tenant, { holdId, outcome: 'release' })).status).toBe('released');
    expect((await rpc.call(HoldSettle.contract, tenant, { holdId, outcome: 'release' })).status).toBe('released');
    expect((await rpcFailure(rpc.call(HoldSettle.contract, tenant, { holdId, outcome: 'capture', destination: 'offramp-provider' }))).code).toBe('CONFLICT');
    expect(balanceOf((await api.get(`/wallets/${wallet.walletId}`)).body.data, 'USDC')).toMatchObject({ available: '100', held: '0' });

    // Captured: the funds leave the wallet.
    const paid = newId('txn');
    await rpc.call(HoldPlace.contract, tenant, { holdId: paid, walletId: wallet.walletId, tokenSymbol: 'USDC', amount: '30' });
    expect((await rpc.call(HoldSettle.contract, tenant, { holdId: paid, outcome: 'capture', destination: 'offramp-provider' })).status).toBe('captured');
    expect(balanceOf((await api.get(`/wallets/${wallet.walletId}`)).body.data, 'USDC')).toMatchObject({ available: '70', held: '0' });

    const stranger = { ...tenant, organizationId: 'org_someone_else' };
    expect(
      (await rpcFailure(rpc.call(HoldPlace.contract, stranger, { holdId: newId('txn'), walletId: wallet.walletId, tokenSymbol: 'USDC', amount: '1' }))).code,
    ).toBe('NOT_FOUND');
    expect((await rpcFailure(rpc.call(HoldSettle.contract, stranger, { holdId: paid, outcome: 'release' }))).code).toBe('NOT_FOUND');
  });

  it('captures a hold less a fee kept as revenue and credits what it bought, in one entry; releases a hold never placed so a late placement takes nothing', async () => {
    const wallet = await newWallet();
    await fund(wallet.walletId, 'USDC', '100');
    const swap = newId('txn');
    await rpc.call(HoldPlace.contract, tenant, { holdId: swap, walletId: wallet.walletId, tokenSymbol: 'USDC', amount: '50' });
    // A fee not smaller than the hold, a credit of a token the chain lacks, or too many decimals: refused, nothing moved.
    expect(
      (
        await rpcFailure(
          rpc.call(HoldSettle.contract, tenant, {
            holdId: swap,
            outcome: 'capture',
            destination: 'route-execution',
            fee: { amount: '50', account: 'swap-fees' },
          }),
        )
      ).code,
    ).toBe('INVALID_REQUEST');
    expect(
      (
        await rpcFailure(
          rpc.call(HoldSettle.contract, tenant, { holdId: swap, outcome: 'capture', credit: { tokenSymbol: 'BNB', amount: '1', source: 'route-execution' } }),
        )
      ).code,
    ).toBe('INVALID_REQUEST');
    expect(
      (await rpcFailure(rpc.call(HoldSettle.contract, tenant, { holdId: swap, outcome: 'release', fee: { amount: '1', account: 'swap-fees' } }))).code,
    ).toBe('INVALID_REQUEST');
    const settle = {
      holdId: swap,
      outcome: 'capture' as const,
      destination: 'route-execution',
      fee: { amount: '0.15', account: 'swap-fees' },
      credit: { tokenSymbol: 'ETH', amount: '0.015578125', source: 'route-execution' },
    };
    expect((await rpc.call(HoldSettle.contract, tenant, settle)).status).toBe('captured');
    expect((await rpc.call(HoldSettle.contract, tenant, settle)).status).toBe('captured');
    const after = (await api.get(`/wallets/${wallet.walletId}`)).body.data;
    expect(balanceOf(after, 'USDC')).toMatchObject({ available: '50', held: '0' });
    expect(balanceOf(after, 'ETH')).toMatchObject({ available: '0.015578125', held: '0' });
    const legs = await pool.query(
      `select account, asset, trim_scale(sum(amount))::text as amount from ledger.postings where entry_id = $1 group by account, asset order by account, asset`,
      [`capture:${swap}`],
    );
    expect(legs.rows.map((row) => [row.account, row.asset, row.amount])).toEqual([
      ['external:route-execution', 'base:ETH', '-0.015578125'],
      ['external:route-execution', 'base:USDC', '49.85'],
      [`held:${wallet.walletId}`, 'base:USDC', '-50'],
      ['revenue:swap-fees', 'base:USDC', '0.15'],
      [`wallet:${wallet.walletId}`, 'base:ETH', '0.015578125'],
    ]);

    // Released before it was ever placed (its placement was refused, or is still in flight): nothing moves then or later.
    const never = newId('txn');
    const terms = { walletId: wallet.walletId, tokenSymbol: 'USDC', amount: '20' };
    expect((await rpc.call(HoldSettle.contract, tenant, { holdId: never, outcome: 'release', ifMissing: terms })).status).toBe('released');
    expect((await rpc.call(HoldPlace.contract, tenant, { holdId: never, ...terms })).status).toBe('released');
    expect(balanceOf((await api.get(`/wallets/${wallet.walletId}`)).body.data, 'USDC')).toMatchObject({ available: '50', held: '0' });
    expect((await pool.query(`select id from ledger.entries where id in ($1, $2)`, [`hold:${never}`, `release:${never}`])).rows).toEqual([]);
  });

  it('lets exactly as many of 30 concurrent holds through as the balance covers, never below zero, and the books balance', async () => {
    const wallet = await newWallet();
    await fund(wallet.walletId, 'USDC', '100');
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, () =>
        rpc.call(HoldPlace.contract, tenant, { holdId: newId('txn'), walletId: wallet.walletId, tokenSymbol: 'USDC', amount: '10' }),
      ),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(10);
    for (const result of results) if (result.status === 'rejected') expect((result.reason as AppError).code).toBe('INVALID_REQUEST');
    expect(balanceOf((await api.get(`/wallets/${wallet.walletId}`)).body.data, 'USDC')).toMatchObject({ available: '0', held: '100' });

    const books = await new Journal().check(pool);
    expect(books).toEqual({ unbalancedAssets: [], driftedBalances: [], negative: [] });
    await expect(pool.query(`update ledger.postings set amount = amount * 2`)).rejects.toThrow(/append-only/);
  });
});
