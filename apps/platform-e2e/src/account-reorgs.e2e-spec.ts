import { Client, Pool } from 'pg';
import { createPublicClient, erc20Abi, getAddress, http, parseUnits, type Address, type Hex, type PublicClient } from 'viem';
import { AltoBundler, CANONICAL_ENTRY_POINT, deployForLocalBundler } from '@ramp/evm';
import {
  AnvilNode,
  ApiClient,
  endUserWith,
  eventually,
  freePort,
  freshStack,
  ledgerCheck,
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
 * once, from its kept signed copy. Either way the wallet and its account, and the books and the chain, agree again to
 * the base unit.
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
    const after = await check();
    const test = after.chains.find((environment) => environment.environment === 'test')!;
    expect(test.drifts).toEqual([]);
    expect(test.wallets.drifts).toEqual([]);
    expect(after.ok).toBe(true);
  }, 120_000);

  it("lands again, once, a wallet's swap operation that a reorganisation took out after it was final: the account and its books agree again", async () => {
    const { wallet } = await paidAccountWallet('100', '100');
    const quote = (await api.post('/swap/quote', { fromToken: 'USDC', toToken: 'CNGN', amount: '40', fromChain: 'base', toChain: 'base' })).body.data;
    const started = await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId: wallet.walletId });
    expect(started.status).toBe(201);
    const done = (
      await eventually(
        () => api.get(`/swap/${started.body.data.id}`),
        (response) => !['pending', 'processing'].includes(response.body.data.status),
        60_000,
      )
    ).body.data;
    expect(done.status).toBe('completed');
    const [step] = done.route.steps;
    const cngn = getAddress(
      (await api.get('/transfer/chains')).body.data.find((chain: any) => chain.chain === 'base').tokens.find((token: any) => token.symbol === 'CNGN')
        .contractAddress,
    );
    const cngnOf = (holder: Address) => client.readContract({ address: cngn, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
    const swapped = await cngnOf(wallet.address);
    expect(await usdcOf(wallet.address)).toBe(parseUnits('60', 6));
    const key = `${started.body.data.id}:leg:0`;

    // The bundle that carried the operation is taken out of the chain: the account holds its 100 USDC again.
    await reorgFrom(step.transactionHash);
    expect(await usdcOf(wallet.address)).toBe(parseUnits('100', 6));
    // Its kept signed copy goes to the bundler again and lands in another bundle; the account is as the books say.
    const relanded = await eventually(
      async () =>
        (await pool.query(`select status, tx_hash, reorged_at from chain.account_operations where chain = 'test-base' and idempotency_key = $1`, [key]))
          .rows[0],
      (row) => row?.status === 'confirmed' && row.tx_hash !== null && row.tx_hash !== step.transactionHash,
      60_000,
      250,
    );
    expect(relanded.reorged_at).not.toBeNull();
    expect(await usdcOf(wallet.address)).toBe(parseUnits('60', 6));
    expect(await cngnOf(wallet.address)).toBe(swapped);
    expect(await balance(wallet.walletId)).toMatchObject({ available: '60', held: '0' });
    // Booked once: one send.finished for the operation, whatever its landings.
    const { rows: finished } = await pool.query(`select count(*)::int as n from chain.events where type = 'send.finished' and data->>'idempotencyKey' = $1`, [
      `operation:${key}`,
    ]);
    expect(finished[0].n).toBe(1);
    const report = await check();
    const test = report.chains.find((environment) => environment.environment === 'test')!;
    expect(test.drifts).toEqual([]);
    expect(test.wallets.drifts).toEqual([]);
    expect(report.ok).toBe(true);
  }, 180_000);
});
