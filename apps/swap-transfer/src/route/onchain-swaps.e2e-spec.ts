import { Pool } from 'pg';
import {
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  formatUnits,
  getAddress,
  http,
  maxUint256,
  parseEventLogs,
  parseGwei,
  parseUnits,
  type Address,
  type Hex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Config } from '@ramp/config';
import { HdCustody, resolveChains, UniswapV2Pair, UniswapV2Router02 } from '@ramp/evm';
import { dec } from '@ramp/money';
import { ApiClient, createKey, endUserWith, eventually, ledgerCheck, startServices, stopAll, TEST_DATABASE_URL, type ServiceProcess } from '@ramp/testing';

/**
 * Same-chain swaps on the local test chain's pools (Uniswap V2), executed by the chain service from the hot wallet:
 * real hashes with the router's Swap event, what the receipt says credited or paid out, a front-run trade that makes
 * the swap revert on chain (the wallet ends as it began), and kill -9 of the chain service while a swap is in flight.
 */
describe('swaps on chain - through the pools of the local chain, from the hot wallet', () => {
  const base = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS').find((chain) => chain.chain === 'base')!;
  const client = createPublicClient({ transport: http(base.rpcUrl) });
  const hotWallet = HdCustody.development().signer(base.hotWalletPath).address;
  const pool = new Pool({ connectionString: TEST_DATABASE_URL });
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let dex: { router: Address; wrappedNative: Address };
  let tokens: Record<string, Address>;

  beforeAll(async () => {
    services = await startServices(['quote', 'ledger', 'swap-transfer', 'gateway']);
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, (await createKey({ plan: 'enterprise' })).apiKey);
    const chain = (await api.get('/transfer/chains')).body.data.find((candidate: any) => candidate.chain === 'base');
    dex = { router: getAddress(chain.dex.router), wrappedNative: getAddress(chain.dex.wrappedNative) };
    tokens = Object.fromEntries(
      chain.tokens.filter((token: any) => token.symbol !== 'ETH').map((token: any) => [token.symbol, getAddress(token.contractAddress)]),
    );
  }, 90_000);

  afterAll(async () => {
    await client.request({ method: 'evm_setAutomine' as any, params: [true] as any }).catch(() => undefined);
    await stopAll(services.values());
    await pool.end();
  });

  const anvil = (method: string, params: unknown[] = []) => client.request({ method: method as any, params: params as any });
  const balanceOf = (wallet: any, symbol: string) => wallet.balances.find((balance: any) => balance.tokenSymbol === symbol) ?? { available: '0', held: '0' };
  const erc20Balance = (token: Address, holder: Address) => client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });

  const fundedWallet = async (usdc: string) => {
    const wallet = (await api.post('/wallets', { chain: 'base' })).body.data;
    const funded = await api.post(`/sandbox/wallets/${wallet.walletId}/fund`, { tokenSymbol: 'USDC', amount: usdc });
    expect(funded.status).toBe(200);
    return wallet;
  };
  const swapQuote = async (fromToken: string, toToken: string, amount: string, slippage?: number) => {
    const quote = await api.post('/swap/quote', {
      fromToken,
      toToken,
      amount,
      fromChain: 'base',
      toChain: 'base',
      ...(slippage !== undefined && { slippage }),
    });
    expect(quote.status).toBe(200);
    return quote.body.data;
  };
  const initiate = async (quoteId: string, walletId: string, destinationAddress?: string) => {
    const response = await api.post('/swap/initiate', { quoteId, walletId, ...(destinationAddress && { destinationAddress }) });
    expect(response.status).toBe(201);
    return response.body.data.id as string;
  };
  const finished = (id: string) =>
    eventually(
      async () => (await api.get(`/swap/${id}`)).body.data,
      (view) => view.status !== 'pending',
      30_000,
    );
  /** The swap's send in the chain service's queue, once signed (its hash known). */
  const signedSwap = (id: string) =>
    eventually(
      async () =>
        (
          await pool.query<{ tx_hash: string | null; status: string }>(`select tx_hash, status from chain.chain_sends where idempotency_key = $1`, [
            `swap:${id}:leg:0`,
          ])
        ).rows[0],
      (row) => row?.tx_hash != null,
      20_000,
    );
  const swapEvents = async (hash: Hex) =>
    parseEventLogs({ abi: UniswapV2Pair.abi, eventName: 'Swap', logs: (await client.getTransactionReceipt({ hash })).logs });

  it("a swap's hash is the router's transaction on chain: its Swap event gives the hot wallet what the wallet is credited, at least the minimum; the books equal the chain", async () => {
    const wallet = await fundedWallet('500');
    const quote = await swapQuote('USDC', 'ETH', '250');
    const view = await finished(await initiate(quote.quoteId, wallet.walletId));
    expect(view.status).toBe('completed');
    const [step] = view.route.steps;
    expect(step).toMatchObject({ kind: 'swap', provider: 'Uniswap V2', settlement: 'onchain', status: 'completed', fromToken: 'USDC', toToken: 'ETH' });
    expect(step.transactionHash).toBe(view.transactionHash);

    const receipt = await client.getTransactionReceipt({ hash: step.transactionHash });
    expect(receipt.status).toBe('success');
    expect(getAddress(receipt.to!)).toBe(dex.router);
    expect(getAddress(receipt.from)).toBe(hotWallet);
    const [swap] = await swapEvents(step.transactionHash);
    expect(swap).toBeDefined();
    // ETH comes out as WETH to the router, which unwraps it and pays the hot wallet in the same transaction.
    expect(getAddress(swap!.args.to)).toBe(dex.router);
    // What the pool gave is what the step, the transaction and the wallet say, to the wei.
    const delivered = formatUnits(swap!.args.amount0Out + swap!.args.amount1Out, 18);
    expect(step.amountOut).toBe(delivered);
    expect(view.swap.toAmount).toBe(delivered);
    expect(dec(delivered).gte(quote.minimumToAmount)).toBe(true);
    const after = (await api.get(`/wallets/${wallet.walletId}`)).body.data;
    expect(balanceOf(after, 'ETH').available).toBe(delivered);
    expect(balanceOf(after, 'USDC')).toMatchObject({ available: '250', held: '0' });
    expect((await ledgerCheck()).ok).toBe(true);
  }, 90_000);

  it('a swap to an address outside pays it from the pools directly, what the Swap event says', async () => {
    const wallet = await fundedWallet('300');
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const quote = await swapQuote('USDC', 'cbBTC', '200');
    const view = await finished(await initiate(quote.quoteId, wallet.walletId, recipient));
    expect(view.status).toBe('completed');
    const [step] = view.route.steps;
    expect(step).toMatchObject({ settlement: 'onchain', status: 'completed' });
    const events = await swapEvents(step.transactionHash);
    // Two hops through the hub is one hop here: USDC is the hub, so one pair pays the recipient.
    expect(events.map((event) => getAddress(event.args.to))).toEqual([recipient]);
    expect(formatUnits(await erc20Balance(tokens.cbBTC!, recipient), 8)).toBe(step.amountOut);
    expect(balanceOf((await api.get(`/wallets/${wallet.walletId}`)).body.data, 'USDC')).toMatchObject({ available: '100', held: '0' });
    expect((await ledgerCheck()).ok).toBe(true);
  }, 90_000);

  it('a transfer on one chain with a toToken is a swap on the pools paying the destination address', async () => {
    const wallet = await fundedWallet('100');
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const quote = (
      await api.post('/transfer/quote', { fromChain: 'base', toChain: 'base', token: 'USDC', toToken: 'CNGN', amount: '50', destinationAddress: recipient })
    ).body.data;
    const started = await api.post('/transfer/initiate', { quoteId: quote.quoteId, walletId: wallet.walletId });
    expect(started.status).toBe(201);
    const view = await eventually(
      async () => (await api.get(`/transfer/${started.body.data.id}`)).body.data,
      (found) => found.status !== 'pending',
      30_000,
    );
    expect(view.status).toBe('completed');
    const [step] = view.route.steps;
    expect(step).toMatchObject({ kind: 'swap', provider: 'Uniswap V2', settlement: 'onchain', fromToken: 'USDC', toToken: 'CNGN' });
    expect((await swapEvents(step.transactionHash)).map((event) => getAddress(event.args.to))).toEqual([recipient]);
    expect(formatUnits(await erc20Balance(tokens.CNGN!, recipient), 6)).toBe(step.amountOut);
    expect(view.transfer.toAmount).toBe(step.amountOut);
    expect((await ledgerCheck()).ok).toBe(true);
  }, 90_000);

  it('a trade that moves the pool in the same block ahead of the swap makes it revert on chain: SLIPPAGE_EXCEEDED, the wallet and the hot wallet end with exactly what they had', async () => {
    const wallet = await fundedWallet('1000');
    const trader = await endUserWith(api, 'base', base.rpcUrl, { ETH: '1', USDC: '80000' });
    await client.waitForTransactionReceipt({
      hash: await trader.wallet.writeContract({ chain: null, address: tokens.USDC!, abi: erc20Abi, functionName: 'approve', args: [dex.router, maxUint256] }),
    });
    const quote = await swapQuote('USDC', 'ETH', '1000', 0.5);
    // What the wallet's address still holds is swept in before the swap (its sweep is scheduled a moment after the credit).
    const at = await client.getBlockNumber({ cacheTime: 0 });
    const usdcAt = (holder: Address) =>
      client.readContract({ address: tokens.USDC!, abi: erc20Abi, functionName: 'balanceOf', args: [holder], blockNumber: at });
    const hotUsdcBefore = (await usdcAt(hotWallet)) + (await usdcAt(wallet.address));

    // Blocks wait until the trade is in the pool of pending transactions beside the swap, paying more to go first.
    await anvil('evm_setAutomine', [false]);
    let swapHash: Hex;
    let tradeHash: Hex;
    try {
      const id = await initiate(quote.quoteId, wallet.walletId);
      swapHash = (await signedSwap(id))!.tx_hash as Hex;
      tradeHash = await trader.wallet.sendTransaction({
        chain: null,
        to: dex.router,
        gas: 300_000n,
        maxFeePerGas: parseGwei('500'),
        maxPriorityFeePerGas: parseGwei('400'),
        data: encodeFunctionData({
          abi: UniswapV2Router02.abi,
          functionName: 'swapExactTokensForTokens',
          args: [parseUnits('80000', 6), 0n, [tokens.USDC!, dex.wrappedNative], trader.account.address, maxUint256],
        }),
      });
      await anvil('evm_mine');
      const view = await finished(id);
      expect(view.status).toBe('failed');
      expect(view.failureReason).toBe('SLIPPAGE_EXCEEDED');
      expect(view.errorMessage).toMatch(/would give [\d.]+ ETH, less than the minimum of [\d.]+ ETH/);
      // The reverted transaction is the failed step's hash: anyone can look the failure up on the chain.
      expect(view.route.steps[0]).toMatchObject({ settlement: 'onchain', status: 'failed', transactionHash: swapHash });
    } finally {
      await anvil('evm_setAutomine', [true]);
    }
    // Both in one block, the trade first: the swap was mined and reverted there.
    const [trade, swap] = [await client.getTransactionReceipt({ hash: tradeHash }), await client.getTransactionReceipt({ hash: swapHash })];
    expect(trade.status).toBe('success');
    expect(swap.status).toBe('reverted');
    expect(swap.blockNumber).toBe(trade.blockNumber);
    expect(swap.transactionIndex).toBeGreaterThan(trade.transactionIndex);
    expect(await erc20Balance(tokens.USDC!, hotWallet)).toBe(hotUsdcBefore);
    const after = (await api.get(`/wallets/${wallet.walletId}`)).body.data;
    expect(balanceOf(after, 'USDC')).toMatchObject({ available: '1000', held: '0' });
    expect(balanceOf(after, 'ETH').available).toBe('0');
    // The gas of the reverted swap is booked: the books still equal the chain.
    expect((await ledgerCheck()).ok).toBe(true);
  }, 90_000);

  it('kill -9 of the chain service while the swap is in flight: it is mined once, booked once, and the transaction completes', async () => {
    const wallet = await fundedWallet('400');
    const quote = await swapQuote('USDC', 'ETH', '300');
    const chain = services.get('chain')!;
    await anvil('evm_setAutomine', [false]);
    let id: string;
    try {
      id = await initiate(quote.quoteId, wallet.walletId);
      await signedSwap(id);
      await chain.kill();
      await anvil('evm_mine');
    } finally {
      await anvil('evm_setAutomine', [true]);
    }
    await chain.start();
    const view = await finished(id);
    expect(view.status).toBe('completed');
    const sends = (await pool.query(`select status, tx_hash from chain.chain_sends where idempotency_key like $1`, [`swap:${id}:%`])).rows;
    expect(sends).toEqual([{ status: 'confirmed', tx_hash: view.route.steps[0].transactionHash }]);
    const [swap] = await swapEvents(view.route.steps[0].transactionHash);
    expect(balanceOf((await api.get(`/wallets/${wallet.walletId}`)).body.data, 'ETH').available).toBe(
      formatUnits(swap!.args.amount0Out + swap!.args.amount1Out, 18),
    );
    expect((await ledgerCheck()).ok).toBe(true);
  }, 120_000);
});
