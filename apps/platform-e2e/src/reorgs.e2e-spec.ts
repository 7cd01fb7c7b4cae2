import { Client, Pool } from 'pg';
import { createPublicClient, erc20Abi, getAddress, http, parseUnits, type Address, type Hex, type PublicClient } from 'viem';
import { makeNuban } from '@ramp/banking';
import {
  AnvilNode,
  ApiClient,
  endUserWith,
  eventually,
  freshStack,
  ledgerCheck,
  makeTestCertificates,
  runCompiled,
  startServices,
  stopAll,
  TEST_DATABASE_URL,
  WebhookReceiver,
  type ServiceProcess,
} from '@ramp/testing';

const GTB = makeNuban('058', '012345678');

/**
 * Reorganisations of a chain (anvil_reorg) that remove deposits the platform had credited, on nodes and a stack of
 * their own (the other suites' chains never reorganise): a managed wallet's deposit is taken back (from what the
 * wallet still holds, the rest booked as the platform's reorg loss, never a negative balance) and its integrator told
 * by `wallet.deposit_reversed`; a non-custodial off-ramp whose deposit goes before its payout fails (DEPOSIT_REVERSED)
 * and sends nothing back; one already paid out stays completed, with the loss booked. The hot wallet's own sends that
 * the reorganisation took out are sent again, and its send queue goes on.
 */
describe('reorgs - a reorganisation removes credited deposits: taken back, failed or flagged, never lost from the books', () => {
  const nodes = [new AnvilNode({ chainId: 84532 }), new AnvilNode({ chainId: 97 })];
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = '/ramp_reorgs_test';
  const databaseUrl = url.toString();
  const namespace = 'reorgs';
  const env = { DATABASE_URL: databaseUrl, EVENTS_NAMESPACE: namespace };
  const certificates = makeTestCertificates();
  const secrets = new Map<string, string>();
  const receiver = new WebhookReceiver(certificates, { secretFor: (path) => secrets.get(path) });
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let client: PublicClient;
  let pool: Pool;
  let usdc: Address;

  beforeAll(async () => {
    await Promise.all(nodes.map((node) => node.start()));
    await freshStack(databaseUrl, namespace);
    await receiver.start();
    services = await startServices(['quote', 'ledger', 'ramp', 'notifier', 'gateway'], {
      ...env,
      TEST_CHAINS: JSON.stringify({
        base: { rpcUrl: nodes[0]!.rpcUrl, localPort: nodes[0]!.port },
        bsc: { rpcUrl: nodes[1]!.rpcUrl, localPort: nodes[1]!.port },
        arbitrum: null,
      }),
      WEBHOOK_ALLOW_HOSTS: 'localhost',
      WEBHOOK_CA_FILE: certificates.caFile,
      // The payout waits this long after the swap: long enough for a reorganisation to come before it.
      SANDBOX_STEP_DELAY_MS: '4000',
      SANDBOX_DEPOSIT_WINDOW_SECONDS: '120',
    });
    const key = await runCompiled('dist/apps/gateway/src/cli/keys.js', ['create', '--org', `Reorgs ${Date.now()}`, '--env', 'test', '--plan', 'enterprise'], {
      DATABASE_URL: databaseUrl,
    });
    expect(key.code).toBe(0);
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, JSON.parse(key.stdout).apiKey);
    client = createPublicClient({ transport: http(nodes[0]!.rpcUrl) }) as PublicClient;
    pool = new Pool({ connectionString: databaseUrl, max: 2 });
    const base = (await api.get('/transfer/chains')).body.data.find((chain: any) => chain.chain === 'base');
    usdc = getAddress(base.tokens.find((token: any) => token.symbol === 'USDC').contractAddress);
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await stopAll(services?.values() ?? []);
    await receiver.stop();
    await Promise.all(nodes.map((node) => node.stop()));
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query('drop database if exists ramp_reorgs_test with (force)');
    await admin.end();
  });

  const usdcOf = (holder: Address) => client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
  const balance = async (walletId: string) => (await api.get(`/wallets/${walletId}`)).body.data.balances.find((entry: any) => entry.tokenSymbol === 'USDC');
  const settled = async (type: string, id: string) =>
    (
      await eventually(
        () => api.get(`/${type}/${id}`),
        (response) => response.body.data.status !== 'pending',
        60_000,
      )
    ).body.data;
  /** Every block from the one holding `hash` up to the head replaced with empty ones: what it held never happened. */
  const reorgFrom = (hash: Hex) => nodes[0]!.reorgOut(hash);
  /** An end user holding USDC (and ETH for gas) on base, who pays it to an address. */
  const endUser = async (amount: string) => {
    const { account, wallet } = await endUserWith(api, 'base', nodes[0]!.rpcUrl, { ETH: '1', USDC: amount });
    const pay = async (to: Address, value: string) => {
      const hash = await wallet.writeContract({ chain: null, address: usdc, abi: erc20Abi, functionName: 'transfer', args: [to, parseUnits(value, 6)] });
      expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
      return hash;
    };
    return { address: account.address, pay };
  };
  const account = async (name: string, asset: string) =>
    (await pool.query(`select amount::text from ledger.balances where account = $1 and asset = $2`, [name, asset])).rows[0]?.amount as string | undefined;

  it("a wallet's deposit is taken back from what it still holds, the rest booked as the platform's loss, and its integrator told", async () => {
    const wallet = (await api.post('/wallets', { chain: 'base' })).body.data;
    secrets.set('/wallet-events', (await api.post('/webhooks', { url: receiver.url('/wallet-events'), events: ['wallet.deposit_reversed'] })).body.data.secret);
    // A webhook on every transaction event (`*`) never receives a wallet event: one added within /v1 goes only to those that name it.
    secrets.set('/everything', (await api.post('/webhooks', { url: receiver.url('/everything'), events: ['*'] })).body.data.secret);
    const user = await endUser('50');
    const paid = await user.pay(wallet.address, '20');
    await eventually(
      () => balance(wallet.walletId),
      (entry) => entry?.available === '20',
    );
    // 15 of it leave in a custodial off-ramp, paid out: the wallet holds 5 when the chain takes the 20 back.
    const quote = (await api.post('/offramp/quote', { amount: '15', tokenSymbol: 'USDC', bankCode: '058', accountNumber: GTB, chain: 'base' })).body.data;
    const started = await api.post('/offramp/initiate', { quoteId: quote.quoteId, walletId: wallet.walletId });
    expect(started.status).toBe(201);
    expect(await settled('offramp', started.body.data.transactionId)).toMatchObject({ status: 'completed' });
    expect(await balance(wallet.walletId)).toMatchObject({ available: '5', held: '0' });

    await reorgFrom(paid);
    await eventually(
      () => balance(wallet.walletId),
      (entry) => entry?.available === '0',
      30_000,
    );
    expect(await balance(wallet.walletId)).toMatchObject({ available: '0', held: '0' });
    // Never a negative customer balance: what the wallet no longer held is the platform's loss, on record.
    expect(await account('external:reorg-loss-test-base', 'base:USDC')).toBe('-15');
    // The end user's transfer never happened: they hold what they were given.
    expect(await usdcOf(user.address)).toBe(parseUnits('50', 6));

    const [event] = await eventually(
      () => Promise.resolve(receiver.on('/wallet-events')),
      (received) => received.length > 0,
      30_000,
    );
    expect(event!.signatureValid).toBe(true);
    expect(event!.body).toMatchObject({
      event: 'wallet.deposit_reversed',
      data: { walletId: wallet.walletId, chain: 'base', address: wallet.address, tokenSymbol: 'USDC', amount: '20', transactionHash: paid, from: user.address },
    });
    expect(event!.headers['x-service-event-id']).toBe(event!.body.data.metadata.eventId);
    expect(receiver.on('/everything').map((delivery) => delivery.body.event)).not.toContain('wallet.deposit_reversed');
  }, 120_000);

  it('an off-ramp whose deposit is removed before its payout fails with DEPOSIT_REVERSED and sends nothing back', async () => {
    const user = await endUser('100');
    const quote = (await api.post('/offramp/quote', { amount: '30', tokenSymbol: 'USDC', bankCode: '058', accountNumber: GTB, chain: 'base' })).body.data;
    const started = (await api.post('/offramp/initiate', { quoteId: quote.quoteId, sourceAddress: user.address })).body.data;
    const paid = await user.pay(started.depositAddress, '30');
    // Credited and swapped; the payout waits its 4 seconds.
    await eventually(
      () => api.get(`/offramp/${started.transactionId}`),
      (response) => response.body.data.depositTransactionHash === paid,
      30_000,
    );
    await reorgFrom(paid);
    const failed = await settled('offramp', started.transactionId);
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'DEPOSIT_REVERSED' });
    expect(failed.errorMessage).toMatch(/removed the deposit/);
    expect(failed).not.toHaveProperty('refundTransactionHash');
    // Nothing was paid out and nothing sent back: the end user has exactly what they had before paying.
    expect(failed.hashes.map((hash: any) => hash.step)).not.toContain('settlement');
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(await usdcOf(user.address)).toBe(parseUnits('100', 6));
  }, 120_000);

  it('an off-ramp already paid out when its deposit is removed stays completed, flagged with the loss booked', async () => {
    const user = await endUser('100');
    const quote = (await api.post('/offramp/quote', { amount: '40', tokenSymbol: 'USDC', bankCode: '058', accountNumber: GTB, chain: 'base' })).body.data;
    const started = (await api.post('/offramp/initiate', { quoteId: quote.quoteId, sourceAddress: user.address })).body.data;
    const paid = await user.pay(started.depositAddress, '40');
    expect(await settled('offramp', started.transactionId)).toMatchObject({ status: 'completed' });
    /** What the off-ramp deposits account holds of this deposit: its entries (credit, spending, reversal, loss) summed. */
    const owed = async () =>
      (
        await pool.query(
          `select coalesce(sum(amount), 0)::text as owed, count(*)::int as postings from ledger.postings
            where account = 'external:offramp-deposits-test-base' and asset = 'base:USDC' and (entry_id like $1 or entry_id = $2)`,
          [`deposit:%:${paid}:%`, `offramp:${started.transactionId}:deposit-spent`],
        )
      ).rows[0] as { owed: string; postings: number };
    // Paid out, its deposit is spent: credited to the off-ramp deposits account, then moved to the provider's, so it is
    // owed to no one (before, it stayed there: owed forever, and the treasury's free inventory less by it).
    expect(await eventually(owed, (sum) => sum.postings === 2, 30_000)).toEqual({ owed: '0', postings: 2 });
    const { rows: spent } = await pool.query(`select p.account, p.amount::text from ledger.postings p where p.entry_id = $1 order by p.amount`, [
      `offramp:${started.transactionId}:deposit-spent`,
    ]);
    expect(spent).toEqual([
      { account: 'external:offramp-deposits-test-base', amount: '-40' },
      { account: 'external:offramp-provider-test-base', amount: '40' },
    ]);
    const lossBefore = (await account('external:reorg-loss-test-base', 'base:USDC')) ?? '0';
    await reorgFrom(paid);
    await eventually(
      () => account('external:reorg-loss-test-base', 'base:USDC'),
      (loss) => Number(loss) === Number(lossBefore) - 40,
      30_000,
    );
    expect((await api.get(`/offramp/${started.transactionId}`)).body.data.status).toBe('completed');
    // The loss is the platform's; the deposit is still owed to no one (reversed, and its loss booked back).
    expect(await eventually(owed, (sum) => sum.postings === 4, 30_000)).toEqual({ owed: '0', postings: 4 });
    // Flagged in the off-ramp's own history, for an operator (and logged as an error by the ramp service).
    const { rows } = await pool.query(`select data from ramp.events where type = 'offramp.deposit_reversed' and data->>'depositId' like $1`, [`%:${paid}:%`]);
    expect(rows.map((row) => row.data)).toEqual([expect.objectContaining({ afterPayout: true, refunded: false, tokenSymbol: 'USDC', amount: '40' })]);
  }, 120_000);

  it('after the reorganisations: the hot wallet sends again, no customer balance is negative, and the books of the tokens equal the chain', async () => {
    // A new deposit is credited and swept: the hot wallet's queue goes on after its sends were taken out and sent again.
    const wallet = (await api.post('/wallets', { chain: 'base' })).body.data;
    const user = await endUser('10');
    await user.pay(wallet.address, '10');
    await eventually(
      () => balance(wallet.walletId),
      (entry) => entry?.available === '10',
      30_000,
    );
    await eventually(
      () => usdcOf(wallet.address),
      (left) => left === 0n,
      30_000,
    );
    const check = await ledgerCheck(5_000, env);
    expect(check).toMatchObject({ unbalancedAssets: [], driftedBalances: [], negative: [] });
    const drifts = check.chains.find((entry) => entry.environment === 'test')!.drifts;
    expect(drifts.filter((drift) => drift.tokenSymbol !== 'ETH')).toEqual([]);
    // The sends taken out and mined again paid their gas again, at the new blocks' fees: the books keep the first
    // booking (docs/chains.md), so the native coin may differ by that gas, for an operator to see, and by nothing more.
    for (const drift of drifts) expect(Math.abs(Number(drift.drift))).toBeLessThan(0.001);
  }, 120_000);
});
