import { connect, type NatsConnection } from 'nats';
import { Pool } from 'pg';
import { dec } from '@ramp/money';
import { Config } from '@ramp/config';
import { createPublicClient, erc20Abi, http, parseEventLogs, parseUnits, type Hex } from 'viem';
import { IntentPool, resolveChains } from '@ramp/evm';
import { ApiClient, createKey, eventually, expectError, integrationEventsFor, poolTrader, startServices, stopAll, type ServiceProcess } from '@ramp/testing';

const RECIPIENT = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const SOLANA_RECIPIENT = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
const testChains = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS');
const rpcUrlOf = (chain: string) => testChains.find((candidate) => candidate.chain === chain)!.rpcUrl;
const baseRpcUrl = rpcUrlOf('base');
/** Seconds the relayer has to fill a bridge deposit here: short, so that a held one is refunded soon. */
const FILL_SECONDS = 10;
/** How long a transaction whose bridge deposit is held waits for its deadline and refund, at most. */
const UNFILLED_MS = (FILL_SECONDS + 40) * 1000;

describe('swaps and transfers - through HTTP, with the wallet and the books checked after each', () => {
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let pool: Pool;
  let nc: NatsConnection;

  beforeAll(async () => {
    services = await startServices(['quote', 'ledger', 'swap-transfer', 'gateway'], {
      SANDBOX_STEP_DELAY_MS: '50',
      CHAIN_BRIDGE_FILL_SECONDS: String(FILL_SECONDS),
    });
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, (await createKey({ plan: 'enterprise' })).apiKey);
    pool = new Pool({ connectionString: process.env.DATABASE_URL });
    nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
  });

  afterAll(async () => {
    await nc.drain();
    await pool.end();
    await stopAll(services.values());
  });

  const wallet = async (chain: 'base' | 'bsc', funds: Record<string, string>, client = api) => {
    const created = await client.post('/wallets', { chain });
    expect(created.status).toBe(201);
    for (const [tokenSymbol, amount] of Object.entries(funds)) {
      expect((await client.post(`/sandbox/wallets/${created.body.data.walletId}/fund`, { tokenSymbol, amount })).status).toBe(200);
    }
    return created.body.data.walletId as string;
  };
  const balances = async (walletId: string): Promise<Record<string, { available: string; held: string }>> =>
    Object.fromEntries(
      (await api.get(`/wallets/${walletId}`)).body.data.balances.map((entry: any) => [entry.tokenSymbol, { available: entry.available, held: entry.held }]),
    );
  const swapQuote = async (body: Record<string, unknown>) => {
    const response = await api.post('/swap/quote', body);
    expect(response.status).toBe(200);
    return response.body.data;
  };
  const transferQuote = async (body: Record<string, unknown>) => {
    const response = await api.post('/transfer/quote', body);
    expect(response.status).toBe(200);
    return response.body.data;
  };
  const settled = async (type: 'swap' | 'transfer', id: string, ms?: number) =>
    (
      await eventually(
        () => api.get(`/${type}/${id}`),
        (response) => response.status !== 200 || response.body.data.status !== 'pending',
        ms,
      )
    ).body.data;
  /** With the sandbox's relayer switch held for this suite's organization: its bridge deposits are refunded after their deadline. */
  const withRelayerHeld = async <T>(run: () => Promise<T>): Promise<T> => {
    expect((await api.post('/sandbox/relayer', { paused: true })).body.data).toEqual({ paused: true });
    try {
      return await run();
    } finally {
      expect((await api.post('/sandbox/relayer', { paused: false })).body.data).toEqual({ paused: false });
    }
  };
  const receiptOn = (chain: string, hash: string) => createPublicClient({ transport: http(rpcUrlOf(chain)) }).getTransactionReceipt({ hash: hash as Hex });
  const booksBalance = async () => {
    expect((await pool.query(`select asset from ledger.postings group by asset having sum(amount) <> 0`)).rows).toEqual([]);
    expect((await pool.query(`select account from ledger.balances where not may_go_negative and amount < 0`)).rows).toEqual([]);
  };

  it('same-chain swap: holds before answering, swaps on the DEX, credits the proceeds, keeps the fee', async () => {
    const walletId = await wallet('base', { USDC: '500' });
    const quote = await swapQuote({ fromToken: 'USDC', toToken: 'ETH', amount: '100', fromChain: 'base', toChain: 'base' });
    const started = await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId, reference: 'swap-1' });
    expect(started.status).toBe(201);
    expect(started.body.data).toMatchObject({
      type: 'swap',
      status: 'pending',
      chain: 'base',
      amount: '100',
      tokenSymbol: 'USDC',
      reference: 'swap-1',
      walletId,
    });
    expect(started.body.data.id).toMatch(/^txn_[0-9A-Z]{26}$/);
    expect(started.body.data.transactionId).toBe(started.body.data.id); // one shape for every initiation
    // Debited through the ledger before the answer: the 100 USDC are held at once.
    expect((await balances(walletId)).USDC).toEqual({ available: '400', held: '100' });

    const done = await settled('swap', started.body.data.id);
    expect(done).toMatchObject({
      status: 'completed',
      swap: { fromToken: 'USDC', toToken: 'ETH', fromAmount: '100', toAmount: quote.toAmount, fromChain: 'base', toChain: 'base' },
      fees: { platformFee: quote.fees.platformFee, providerFee: '0', totalFee: quote.fees.totalFee },
      destinationAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
    });
    // On the local chain's pools, from the hot wallet: nobody traded since the quote, so it gives the quote to the wei.
    expect(quote.route.providers).toEqual(['Uniswap V2']);
    expect(done.route.steps).toEqual([
      expect.objectContaining({ step: 1, kind: 'swap', provider: 'Uniswap V2', settlement: 'onchain', status: 'completed', amountOut: quote.toAmount }),
    ]);
    expect(done.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(done.transactionHash).toBe(done.route.steps[0].transactionHash);
    expect(done).not.toHaveProperty('errorMessage');
    const after = await balances(walletId);
    expect(after.USDC).toEqual({ available: '400', held: '0' });
    expect(after.ETH).toEqual({ available: quote.toAmount, held: '0' });
    const fee = await pool.query(`select amount::text from ledger.postings where entry_id = $1 and account = 'revenue:swap-fees'`, [`capture:${done.id}`]);
    expect(dec(fee.rows[0].amount).eq(quote.fees.platformFee)).toBe(true);
    await booksBalance();

    // In the read model too, with the type filter, and the detail by id.
    const listed = await eventually(
      () => api.get(`/transactions?type=swap&walletId=${walletId}`),
      (response) => response.body.data?.[0]?.status === 'completed',
    );
    expect(listed.body.meta.total).toBe(1);
    expect(listed.body.data[0]).toMatchObject({ id: done.id, type: 'swap', swap: done.swap, transactionHash: done.transactionHash });
    expect((await api.get(`/transactions/${done.id}`)).body.data).toMatchObject({ id: done.id, type: 'swap', status: 'completed' });
  });

  it("cross-chain swap on chain: source swap on base's pools, the intent bridge filled on bsc, destination swap on bsc's pools, each hash on its chain", async () => {
    const walletId = await wallet('base', { cbBTC: '0.01' });
    const quote = await swapQuote({ fromToken: 'cbBTC', toToken: 'BNB', amount: '0.002', fromChain: 'base', toChain: 'bsc', slippage: 1 });
    expect(quote.isCrossChain).toBe(true);
    // Across chains the proceeds need an address on the destination chain; the refusal leaves the quote unused.
    expectError(await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId }), 400, 'INVALID_REQUEST', 'destinationAddress');
    expectError(
      await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId, destinationAddress: SOLANA_RECIPIENT }),
      400,
      'INVALID_REQUEST',
      'destinationAddress',
    );
    const started = await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId, destinationAddress: RECIPIENT.toLowerCase() });
    expect(started.status).toBe(201);

    const done = await settled('swap', started.body.data.id);
    expect(done.status).toBe('completed');
    expect(quote.route.providers).toEqual(['Uniswap V2', 'Ramp Intents', 'Uniswap V2']);
    expect(
      done.route.steps.map((step: any) => [step.kind, step.provider, step.settlement, step.fromChain, step.toChain, step.fromToken, step.toToken, step.status]),
    ).toEqual([
      ['swap', 'Uniswap V2', 'onchain', 'base', 'base', 'cbBTC', 'USDC', 'completed'],
      ['bridge', 'Ramp Intents', 'onchain', 'base', 'bsc', 'USDC', 'USDC', 'completed'],
      ['swap', 'Uniswap V2', 'onchain', 'bsc', 'bsc', 'USDC', 'BNB', 'completed'],
    ]);
    expect(new Set(done.route.steps.map((step: any) => step.transactionHash)).size).toBe(3);
    // Each hash is a successful transaction on its chain: the bridge's is the fill, on bsc.
    for (const [step, chain] of [
      [0, 'base'],
      [1, 'bsc'],
      [2, 'bsc'],
    ] as const)
      expect((await receiptOn(chain, done.route.steps[step].transactionHash)).status).toBe('success');
    expect(done.route.steps[1].amountIn).toBe(done.route.steps[0].amountOut);
    expect(done.swap).toMatchObject({ toAmount: quote.toAmount, fromChain: 'base', toChain: 'bsc' });
    expect(done.destinationAddress).toBe(RECIPIENT.toLowerCase());
    expect(done.fees.providerFee).toBe(quote.fees.bridgeFee);
    // The cbBTC left the wallet; the BNB went to the address on bsc, not into the base wallet.
    expect((await balances(walletId)).cbBTC).toEqual({ available: '0.008', held: '0' });
    await booksBalance();
  });

  it('slippage: a trade on the pool after the quote moves the price beyond the tolerance, the swap fails on chain and gives everything back; a wider tolerance fills', async () => {
    const walletId = await wallet('base', { USDC: '100' });
    // Someone buys ETH with 20,000 USDC between the quote and the swap: the pool's price of ETH rises about 2%.
    const trader = await poolTrader(api, 'base', baseRpcUrl, 'ETH', '20000');
    const tight = await swapQuote({ fromToken: 'USDC', toToken: 'ETH', amount: '12.34', fromChain: 'base', toChain: 'base' });
    await trader.push();
    const failed = await settled('swap', (await api.post('/swap/initiate', { quoteId: tight.quoteId, walletId })).body.data.id);
    await trader.restore();
    expect(failed.status).toBe('failed');
    expect(failed.errorMessage).toMatch(
      /^Slippage exceeded: .* would give [\d.]+ ETH, less than the minimum of .* ETH that the 0\.5% slippage tolerance allows/,
    );
    expect(failed.route.steps[0]).toMatchObject({ status: 'failed', settlement: 'onchain' });
    expect(failed.route.steps[0]).not.toHaveProperty('transactionHash');
    expect(failed).toMatchObject({ failureReason: 'SLIPPAGE_EXCEEDED' });
    expect(await balances(walletId)).toMatchObject({ USDC: { available: '100', held: '0' }, ETH: { available: '0', held: '0' } });

    const wide = await swapQuote({ fromToken: 'USDC', toToken: 'ETH', amount: '12.34', fromChain: 'base', toChain: 'base', slippage: 3 });
    await trader.push();
    const filled = await settled('swap', (await api.post('/swap/initiate', { quoteId: wide.quoteId, walletId })).body.data.id);
    await trader.restore();
    expect(filled.status).toBe('completed');
    // About 2% less than quoted, within the 3% tolerance.
    expect(dec(filled.swap.toAmount).lt(dec(wide.toAmount).mul('0.985'))).toBe(true);
    expect(dec(filled.swap.toAmount).gte(wide.minimumToAmount)).toBe(true);
    expect(await balances(walletId)).toMatchObject({ USDC: { available: '87.66', held: '0' }, ETH: { available: filled.swap.toAmount, held: '0' } });
    await booksBalance();
  });

  it('bridge failure after a source swap (the relayer held, the deposit refunded after its deadline): the swap is unwound on chain, the wallet gets its whole amount back', async () => {
    const walletId = await wallet('bsc', { BNB: '50' });
    const quote = await swapQuote({ fromToken: 'BNB', toToken: 'cbBTC', amount: '2', fromChain: 'bsc', toChain: 'base' });
    const failed = await withRelayerHeld(async () =>
      settled('swap', (await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId, destinationAddress: RECIPIENT })).body.data.id, UNFILLED_MS),
    );
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'BRIDGE_FAILED' });
    expect(failed.errorMessage).toMatch(
      /^The Ramp Intents bridge of USDC from bsc to base failed: the relayer did not fill the deposit on base before its deadline .*; it was refunded on bsc/,
    );
    expect(failed.route.steps.map((step: any) => step.status)).toEqual(['reversed', 'failed', 'skipped']);
    // The source swap's way back is a swap on bsc's pools; the failed bridge shows its refund, on bsc.
    expect((await receiptOn('bsc', failed.route.steps[0].reversalHash)).status).toBe('success');
    expect((await receiptOn('bsc', failed.route.steps[1].transactionHash)).status).toBe('success');
    expect(failed.transactionHash).toBe(failed.route.steps[0].reversalHash);
    expect((await balances(walletId)).BNB).toEqual({ available: '50', held: '0' });
    await booksBalance();
  });

  it('gives exactly one transaction for 20 parallel initiations with one quote, and debits once', async () => {
    const walletId = await wallet('base', { USDC: '1000' });
    const quote = await swapQuote({ fromToken: 'USDC', toToken: 'USDT', amount: '100', fromChain: 'base', toChain: 'base' });
    const attempts = await Promise.all(Array.from({ length: 20 }, () => api.post('/swap/initiate', { quoteId: quote.quoteId, walletId })));
    const created = attempts.filter((response) => response.status === 201);
    expect(created).toHaveLength(1);
    for (const response of attempts.filter((r) => r.status !== 201)) expectError(response, 409, 'CONFLICT');
    expect((await settled('swap', created[0]!.body.data.id)).status).toBe('completed');
    expect(await balances(walletId)).toMatchObject({ USDC: { available: '900', held: '0' }, USDT: { available: quote.toAmount, held: '0' } });
    const holds = await pool.query(`select id, status from ledger.holds where wallet_id = $1`, [walletId]);
    expect(holds.rows).toEqual([{ id: created[0]!.body.data.id, status: 'captured' }]);
  });

  it('two swaps racing for one balance: one completes, the other fails without taking anything, and nothing stays held', async () => {
    const walletId = await wallet('base', { USDC: '150' });
    const quotes = await Promise.all([1, 2].map(() => swapQuote({ fromToken: 'USDC', toToken: 'ETH', amount: '100', fromChain: 'base', toChain: 'base' })));
    // Both pass the balance check (150 covers either), then only one hold fits.
    const started = await Promise.all(quotes.map((quote) => api.post('/swap/initiate', { quoteId: quote.quoteId, walletId })));
    expect(started.map((response) => response.status)).toEqual([201, 201]);
    const ends = await Promise.all(started.map((response) => settled('swap', response.body.data.id)));
    expect(ends.map((end) => end.status).sort()).toEqual(['completed', 'failed']);
    expect(ends.find((end) => end.status === 'failed')!.errorMessage).toMatch(/^The wallet could not be debited: .*available balance of 50 USDC/);
    expect((await balances(walletId)).USDC).toEqual({ available: '50', held: '0' });
    const holds = await pool.query(`select status, count(*)::int as n from ledger.holds where wallet_id = $1 group by status order by status`, [walletId]);
    expect(holds.rows).toEqual([
      { status: 'captured', n: 1 },
      { status: 'released', n: 1 },
    ]);
    await booksBalance();
  });

  it("credits the wallet when a same-chain swap names the wallet's own address", async () => {
    const walletId = await wallet('base', { USDC: '100' });
    const address = (await api.get(`/wallets/${walletId}`)).body.data.address as string;
    const quote = await swapQuote({ fromToken: 'USDC', toToken: 'USDT', amount: '50', fromChain: 'base', toChain: 'base' });
    const done = await settled(
      'swap',
      (await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId, destinationAddress: address.toLowerCase() })).body.data.id,
    );
    expect(done.status).toBe('completed');
    expect((await balances(walletId)).USDT).toEqual({ available: quote.toAmount, held: '0' });
  });

  it('refuses, before the quote is used: a missing or foreign wallet, one on another chain, too little balance, another kind of quote', async () => {
    const poor = await wallet('base', { USDC: '5' });
    const onBsc = await wallet('bsc', { USDC: '500' });
    const quote = await swapQuote({ fromToken: 'USDC', toToken: 'ETH', amount: '100', fromChain: 'base', toChain: 'base' });
    expectError(await api.post('/swap/initiate', { quoteId: quote.quoteId }), 400, 'INVALID_REQUEST', 'walletId');
    const refused = await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId: poor });
    expectError(refused, 400, 'INVALID_REQUEST', 'walletId');
    expect(refused.body.error.message).toContain('5 USDC');
    expectError(await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId: onBsc }), 400, 'INVALID_REQUEST', 'walletId');
    const stranger = api.withKey((await createKey()).apiKey);
    const theirs = await wallet('base', { USDC: '500' }, stranger);
    expectError(await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId: theirs }), 404, 'NOT_FOUND');
    expectError(await stranger.post('/swap/initiate', { quoteId: quote.quoteId, walletId: theirs }), 404, 'NOT_FOUND');
    expectError(await api.post('/transfer/initiate', { quoteId: quote.quoteId, walletId: poor }), 400, 'INVALID_REQUEST');
    expectError(await api.post('/swap/initiate', { quoteId: 'qt_01JD7X3Q9Z8K4M2N6P5R7S9T1V', walletId: poor }), 404, 'NOT_FOUND');

    // None of that used the quote: funded, it goes through once.
    await api.post(`/sandbox/wallets/${poor}/fund`, { tokenSymbol: 'USDC', amount: '95' });
    const accepted = await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId: poor });
    expect(accepted.status).toBe(201);
    expectError(await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId: poor }), 409, 'CONFLICT');
    // Polling: only its own tenant and its own type see it.
    expectError(await stranger.get(`/swap/${accepted.body.data.id}`), 404, 'NOT_FOUND');
    expectError(await api.get(`/transfer/${accepted.body.data.id}`), 404, 'NOT_FOUND');
    expectError(await api.get('/swap/txn_nonsense'), 404, 'NOT_FOUND');
  });

  it('transfer without toToken: one bridge by intent to the address on the destination chain, filled there', async () => {
    const walletId = await wallet('base', { USDC: '300' });
    const quote = await transferQuote({ fromChain: 'base', toChain: 'arbitrum', token: 'USDC', amount: '200', destinationAddress: RECIPIENT });
    const started = await api.post('/transfer/initiate', { quoteId: quote.quoteId, walletId, reference: 'treasury-1' });
    expect(started.body.data.transactionId).toBe(started.body.data.id);
    expect(started.status).toBe(201);
    expect((await balances(walletId)).USDC).toEqual({ available: '100', held: '200' });
    const done = await settled('transfer', started.body.data.id);
    expect(done).toMatchObject({
      type: 'transfer',
      status: 'completed',
      chain: 'base',
      amount: '200',
      tokenSymbol: 'USDC',
      reference: 'treasury-1',
      transfer: { fromChain: 'base', toChain: 'arbitrum', destinationAddress: RECIPIENT, toToken: 'USDC', toAmount: quote.toAmount },
      fees: { bridgeFee: quote.fees.bridgeFee, totalFee: quote.fees.totalFee },
    });
    expect(done).not.toHaveProperty('swap');
    expect(quote.route.bridge).toBe('Ramp Intents');
    expect(done.route.steps).toEqual([
      expect.objectContaining({ kind: 'bridge', provider: 'Ramp Intents', settlement: 'onchain', status: 'completed', amountOut: quote.toAmount }),
    ]);
    // The fill is arbitrum's transaction, paying the address what the quote said.
    const fill = await receiptOn('arbitrum', done.route.steps[0].transactionHash);
    expect(fill.status).toBe('success');
    const paid = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: fill.logs }).map((log) => log.args);
    expect(paid).toEqual([expect.objectContaining({ to: RECIPIENT, value: parseUnits(quote.toAmount, 6) })]);
    expect((await balances(walletId)).USDC).toEqual({ available: '100', held: '0' });
    await booksBalance();
    const listed = await eventually(
      () => api.get(`/transactions?type=transfer&walletId=${walletId}&status=completed`),
      (response) => response.body.meta?.total === 1,
    );
    expect(listed.body.data[0]).toMatchObject({ id: done.id, transfer: done.transfer });
  });

  it('transfer with toToken: bridge, then a swap on the destination chain (Solana: a base58 signature)', async () => {
    const walletId = await wallet('bsc', { USDT: '100' });
    const quote = await transferQuote({
      fromChain: 'bsc',
      toChain: 'solana',
      token: 'USDT',
      toToken: 'SOL',
      amount: '50',
      destinationAddress: SOLANA_RECIPIENT,
    });
    const done = await settled('transfer', (await api.post('/transfer/initiate', { quoteId: quote.quoteId, walletId })).body.data.id);
    expect(done).toMatchObject({
      status: 'completed',
      transfer: { toChain: 'solana', destinationAddress: SOLANA_RECIPIENT, toToken: 'SOL', toAmount: quote.toAmount },
    });
    expect(done.route.steps.map((step: any) => [step.kind, step.provider, step.status])).toEqual([
      ['bridge', 'Mayan', 'completed'],
      ['swap', 'Jupiter', 'completed'],
    ]);
    expect(done.route.steps[1].transactionHash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
    expect((await balances(walletId)).USDT).toEqual({ available: '50', held: '0' });
  });

  it("transfer whose destination swap slips (a trade on bsc's pool after the quote): the bridge is undone on chain and the wallet refunded; an unfilled bridge refunds too", async () => {
    const walletId = await wallet('base', { USDC: '100' });
    const trader = await poolTrader(api, 'bsc', rpcUrlOf('bsc'), 'BNB', '20000');
    const slipping = await transferQuote({ fromChain: 'base', toChain: 'bsc', token: 'USDC', toToken: 'BNB', amount: '12.34', destinationAddress: RECIPIENT });
    await trader.push();
    let slipped;
    try {
      slipped = await settled('transfer', (await api.post('/transfer/initiate', { quoteId: slipping.quoteId, walletId })).body.data.id);
    } finally {
      await trader.restore();
    }
    expect(slipped).toMatchObject({ status: 'failed', failureReason: 'SLIPPAGE_EXCEEDED' });
    expect(slipped.errorMessage).toMatch(/^Slippage exceeded/);
    expect(slipped.route.steps.map((step: any) => [step.provider, step.status])).toEqual([
      ['Ramp Intents', 'reversed'],
      ['Uniswap V2', 'failed'],
    ]);
    // The bridge's way back is a bridge from bsc to base, filled on base.
    expect((await receiptOn('base', slipped.route.steps[0].reversalHash)).status).toBe('success');

    const bridging = await transferQuote({ fromChain: 'base', toChain: 'arbitrum', token: 'USDC', amount: '44.44', destinationAddress: RECIPIENT });
    const unbridged = await withRelayerHeld(async () =>
      settled('transfer', (await api.post('/transfer/initiate', { quoteId: bridging.quoteId, walletId })).body.data.id, UNFILLED_MS),
    );
    expect(unbridged).toMatchObject({ status: 'failed', failureReason: 'BRIDGE_FAILED' });
    expect(unbridged.errorMessage).toMatch(/^The Ramp Intents bridge of USDC from base to arbitrum failed: the relayer did not fill .*refunded on base/);
    const refund = await receiptOn('base', unbridged.route.steps[0].transactionHash);
    expect(parseEventLogs({ abi: IntentPool.abi, eventName: 'Refunded', logs: refund.logs })).toHaveLength(1);
    expect((await balances(walletId)).USDC).toEqual({ available: '100', held: '0' });
    await booksBalance();

    // Each terminal event once on the integration stream, with the webhook payload.
    const ids = [slipped.id, unbridged.id];
    const events = await eventually(
      () => integrationEventsFor(nc, ids),
      (found) => found.length >= 2,
    );
    expect(events.map((event) => event.event)).toEqual(['transfer.failed', 'transfer.failed']);
    expect(events.find((event) => event.data.transactionId === unbridged.id)!.data).toMatchObject({
      type: 'transfer',
      status: 'failed',
      amount: '44.44',
      tokenSymbol: 'USDC',
      chain: 'base',
      walletId,
      errorMessage: unbridged.errorMessage,
    });
  });

  it('publishes swap.completed and transfer.completed once each with the spec payload', async () => {
    const walletId = await wallet('base', { USDC: '100' });
    const swapped = await api.post('/swap/initiate', {
      quoteId: (await swapQuote({ fromToken: 'USDC', toToken: 'ETH', amount: '10', fromChain: 'base', toChain: 'base' })).quoteId,
      walletId,
      reference: 'r-swap',
    });
    const moved = await api.post('/transfer/initiate', {
      quoteId: (await transferQuote({ fromChain: 'base', toChain: 'polygon', token: 'USDC', amount: '10', destinationAddress: RECIPIENT })).quoteId,
      walletId,
    });
    const ids = [swapped.body.data.id, moved.body.data.id];
    const events = await eventually(
      () => integrationEventsFor(nc, ids),
      (found) => found.length >= 2,
    );
    expect(events.map((event) => event.event).sort()).toEqual(['swap.completed', 'transfer.completed']);
    expect(events.find((event) => event.event === 'swap.completed')).toMatchObject({
      data: { transactionId: ids[0], reference: 'r-swap', type: 'swap', status: 'completed', amount: '10', tokenSymbol: 'USDC', chain: 'base', walletId },
    });
    // A swap has no Naira side, and a transfer sent without a reference has none: absent, never null.
    expect(events.find((event) => event.event === 'swap.completed')!.data).not.toHaveProperty('fiatAmount');
    expect(events.find((event) => event.event === 'transfer.completed')!.data).not.toHaveProperty('reference');
    await new Promise((wait) => setTimeout(wait, 500));
    expect(await integrationEventsFor(nc, ids)).toHaveLength(2);
  });
});
