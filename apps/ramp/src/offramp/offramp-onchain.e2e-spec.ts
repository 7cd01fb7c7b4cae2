import { createPublicClient, erc20Abi, getAddress, http, parseEventLogs, parseUnits, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { makeNuban } from '@ramp/banking';
import { Config } from '@ramp/config';
import { resolveChains, UniswapV2Pair } from '@ramp/evm';
import { dec } from '@ramp/money';
import { SANDBOX_OFFRAMP_SETTLEMENT_ADDRESS } from '@ramp/providers';
import { Pool } from 'pg';
import {
  ApiClient,
  createKey,
  endUserWith,
  eventually,
  ledgerCheck,
  poolTrader,
  startServices,
  stopAll,
  TEST_DATABASE_URL,
  type ServiceProcess,
} from '@ramp/testing';

const GTB = makeNuban('058', '012345678');

/**
 * Off-ramps on the local test chain: the deposit address is real, an outside wallet's transfer moves the off-ramp on,
 * and a deposit of another amount or after expiry goes back to its sender on chain; the swap to CNGN goes through the
 * pools (its receipt has the pair's Swap event) and the CNGN is transferred to the provider's settlement address, for
 * custodial and non-custodial off-ramps alike; a pool moved past the tolerance reverts the swap and gives back.
 */
describe('off-ramp - deposits, swaps, settlements and refunds on a real chain', () => {
  const base = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS').find((chain) => chain.chain === 'base')!;
  const client = createPublicClient({ transport: http(base.rpcUrl) });
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let usdc: Address;
  let cngn: Address;
  let tokenAddress: (symbol: string) => Address;

  beforeAll(async () => {
    services = await startServices(['quote', 'ledger', 'ramp', 'gateway'], { SANDBOX_STEP_DELAY_MS: '50', SANDBOX_DEPOSIT_WINDOW_SECONDS: '6' });
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, (await createKey({ plan: 'enterprise' })).apiKey);
    const chains = (await api.get('/transfer/chains')).body.data;
    tokenAddress = (symbol: string) =>
      getAddress(chains.find((chain: any) => chain.chain === 'base').tokens.find((token: any) => token.symbol === symbol).contractAddress);
    usdc = tokenAddress('USDC');
    cngn = tokenAddress('CNGN');
  }, 60_000);

  afterAll(async () => {
    await stopAll(services.values());
  });

  const usdcOf = (address: Address) => client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
  const receiptOf = (hash: Hex) => client.getTransactionReceipt({ hash });
  const cngnOf = (address: Address) => client.readContract({ address: cngn, abi: erc20Abi, functionName: 'balanceOf', args: [address] });

  /**
   * The off-ramp's swap and settlement are transactions on base: the swap's receipt has the pair's Swap event and gave at
   * least the quote's Naira value less 1%; the settlement moved the payout and the provider's fee, in CNGN, to the
   * provider's settlement address: one transfer for the off-ramps' settlements of the moment (CHAIN_SETTLEMENT_NET_MS),
   * of exactly their sum, this one's share among them.
   */
  async function expectOnChain(transactionId: string, done: any, quote: any) {
    const swapHash = done.hashes.find((hash: any) => hash.step === 'swap').transactionHash as Hex;
    const settlementHash = done.hashes.find((hash: any) => hash.step === 'settlement').transactionHash as Hex;
    expect(done.transactionHash).toBe(settlementHash);
    const swap = await receiptOf(swapHash);
    expect(swap.status).toBe('success');
    expect(parseEventLogs({ abi: UniswapV2Pair.abi, eventName: 'Swap', logs: swap.logs }).length).toBeGreaterThan(0);
    const cngnIn = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: swap.logs })
      .filter((log) => getAddress(log.address) === cngn)
      .at(-1)!;
    expect(dec(cngnIn.args.value.toString()).div(1e6).gte(dec(quote.fiatAmount).mul('0.99'))).toBe(true);
    const settlement = await receiptOf(settlementHash);
    expect(settlement.status).toBe('success');
    const [sent] = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: settlement.logs });
    expect(getAddress(sent!.address)).toBe(cngn);
    expect(getAddress(sent!.args.to)).toBe(SANDBOX_OFFRAMP_SETTLEMENT_ADDRESS);
    const pool = new Pool({ connectionString: TEST_DATABASE_URL });
    try {
      const { rows: shares } = await pool.query<{ send_key: string; amount: string }>(
        `select t.send_key, t.amount::text from chain.transfers t join chain.chain_sends s on s.chain = t.chain and s.idempotency_key = t.net_send_key
          where s.chain = 'test-base' and s.tx_hash = $1`,
        [settlementHash],
      );
      expect(shares).toContainEqual({
        send_key: `transfer:${transactionId}:settle`,
        amount: dec(quote.payoutAmount).add(quote.fees.providerFee).toFixed(),
      });
      expect(sent!.args.value).toBe(parseUnits(shares.reduce((sum, share) => sum.add(share.amount), dec(0)).toFixed(), 6));
    } finally {
      await pool.end();
    }
  }

  /** An end user with test ETH and USDC from the faucet, who pays USDC to an address. */
  async function endUser(usdcAmount: string) {
    const { account, wallet } = await endUserWith(api, 'base', base.rpcUrl, { ETH: '1', USDC: usdcAmount });
    const pay = async (to: Address, amount: string) => {
      const hash = await wallet.writeContract({ chain: null, address: usdc, abi: erc20Abi, functionName: 'transfer', args: [to, parseUnits(amount, 6)] });
      expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
      return hash;
    };
    return { address: account.address, pay };
  }

  const quoteOf = async (amount: string, tokenSymbol = 'USDC') =>
    (await api.post('/offramp/quote', { amount, tokenSymbol, bankCode: '058', accountNumber: GTB, chain: 'base' })).body.data;
  const initiate = async (amount: string, sourceAddress: string) => {
    const quote = await quoteOf(amount);
    const started = await api.post('/offramp/initiate', { quoteId: quote.quoteId, sourceAddress });
    expect(started.status).toBe(201);
    return { ...started.body.data, quote } as { transactionId: string; depositAddress: Address; quote: any };
  };
  const settled = async (transactionId: string) =>
    (
      await eventually(
        () => api.get(`/offramp/${transactionId}`),
        (response) => response.body.data.status !== 'pending',
        30_000,
      )
    ).body.data;

  it("an outside wallet's transfer of the quoted amount to the deposit address completes the off-ramp, with the deposit's real hash", async () => {
    const user = await endUser('100');
    const started = await initiate('60', user.address);
    expect(await client.getCode({ address: started.depositAddress })).toBeUndefined(); // an address only, until swept
    const paid = await user.pay(started.depositAddress, '60');
    const done = await settled(started.transactionId);
    expect(done).toMatchObject({ status: 'completed', depositAddress: started.depositAddress, depositTransactionHash: paid, sourceAddress: user.address });
    expect(done).not.toHaveProperty('refundTransactionHash');
    // The deposit, the swap to CNGN and the CNGN's settlement with the provider are all on chain.
    expect(done.hashes.map(({ step, settlement }: any) => [step, settlement])).toEqual([
      ['deposit', 'onchain'],
      ['swap', 'onchain'],
      ['settlement', 'onchain'],
    ]);
    await expectOnChain(started.transactionId, done, started.quote);
    // Swept to the hot wallet: the address holds nothing, and is now the forwarder.
    await eventually(
      () => usdcOf(started.depositAddress),
      (left) => left === 0n,
    );
    expect(await client.getCode({ address: started.depositAddress })).toMatch(/^0x[0-9a-f]+/);
    expect(await usdcOf(user.address)).toBe(parseUnits('40', 6));
  }, 60_000);

  it('a deposit of another amount fails the off-ramp and goes back to its sender on chain', async () => {
    const user = await endUser('100');
    const started = await initiate('60', user.address);
    await user.pay(started.depositAddress, '59.5');
    const failed = await settled(started.transactionId);
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'DEPOSIT_AMOUNT_MISMATCH' });
    const refund = await receiptOf(failed.refundTransactionHash);
    expect(refund.status).toBe('success');
    expect(getAddress(refund.to!)).toBe(usdc);
    expect(failed.hashes).toEqual([
      { step: 'deposit', transactionHash: failed.depositTransactionHash, settlement: 'onchain' },
      { step: 'refund', transactionHash: failed.refundTransactionHash, settlement: 'onchain' },
    ]);
    expect(await usdcOf(user.address)).toBe(parseUnits('100', 6));
  }, 60_000);

  /** An end user holding `tokens` (from the faucet), who transfers any of them to an address. */
  async function endUserHolding(tokens: Record<string, string>) {
    const { account, wallet } = await endUserWith(api, 'base', base.rpcUrl, { ETH: '1', ...tokens });
    const send = async (token: Address, to: Address, units: bigint) => {
      const hash = await wallet.writeContract({ chain: null, address: token, abi: erc20Abi, functionName: 'transfer', args: [to, units] });
      expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
      return hash;
    };
    return { address: account.address, send };
  }
  const balanceOf = (token: Address, holder: Address) => client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });

  it('a deposit of another token never funds the off-ramp: that token goes back, exactly what arrived, and the off-ramp waits for its own', async () => {
    const cbbtc = tokenAddress('cbBTC');
    const user = await endUserHolding({ CNGN: '100', cbBTC: '0.01' });
    const quote = await quoteOf('0.001', 'cbBTC');
    const started = await api.post('/offramp/initiate', { quoteId: quote.quoteId, sourceAddress: user.address });
    expect(started.status).toBe(201);
    const { transactionId, depositAddress } = started.body.data as { transactionId: string; depositAddress: Address };
    // 50 CNGN (about three US cents) where 0.001 cbBTC was quoted: worth nothing like it, and never 50 cbBTC back.
    const wrong = await user.send(cngn, depositAddress, parseUnits('50', 6));
    await eventually(
      () => balanceOf(cngn, user.address),
      (balance) => balance === parseUnits('100', 6),
      30_000,
    );
    expect(await balanceOf(cbbtc, user.address)).toBe(parseUnits('0.01', 8));
    const waiting = (await api.get(`/offramp/${transactionId}`)).body.data;
    expect(waiting.status).toBe('pending');
    expect(waiting).not.toHaveProperty('depositTransactionHash');
    // Its own token, as quoted, then funds it.
    const right = await user.send(cbbtc, depositAddress, parseUnits('0.001', 8));
    const done = await settled(transactionId);
    expect(done).toMatchObject({ status: 'completed', depositTransactionHash: right });
    expect(done.depositTransactionHash).not.toBe(wrong);
    expect(await balanceOf(cbbtc, user.address)).toBe(parseUnits('0.009', 8));
    expect(await balanceOf(cngn, user.address)).toBe(parseUnits('100', 6));
  }, 90_000);

  it('a deposit of another token of exactly the quoted amount (USDT for a USDC off-ramp) does not complete it: it goes back, and the address expires', async () => {
    const usdt = tokenAddress('USDT');
    const user = await endUserHolding({ USDT: '40' });
    const quote = await quoteOf('25');
    const started = await api.post('/offramp/initiate', { quoteId: quote.quoteId, sourceAddress: user.address });
    expect(started.status).toBe(201);
    const { transactionId, depositAddress } = started.body.data as { transactionId: string; depositAddress: Address };
    await user.send(usdt, depositAddress, parseUnits('25', 6));
    const failed = await settled(transactionId);
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'DEPOSIT_EXPIRED' });
    expect(failed).not.toHaveProperty('depositTransactionHash');
    await eventually(
      () => balanceOf(usdt, user.address),
      (balance) => balance === parseUnits('40', 6),
      30_000,
    );
    expect(await usdcOf(user.address)).toBe(0n);
  }, 90_000);

  it("dust (below the token's minimum) funds nothing and is not moved: recorded and kept as the platform's, where it arrived", async () => {
    const user = await endUser('1');
    const started = await initiate('30', user.address);
    await user.pay(started.depositAddress, '0.005');
    const expired = await settled(started.transactionId);
    expect(expired).toMatchObject({ status: 'failed', failureReason: 'DEPOSIT_EXPIRED' });
    expect(expired).not.toHaveProperty('depositTransactionHash');
    // Neither swept nor refunded: sending it anywhere would cost more gas than it is worth.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await usdcOf(started.depositAddress)).toBe(parseUnits('0.005', 6));
    expect(await usdcOf(user.address)).toBe(parseUnits('0.995', 6));
  }, 90_000);

  it('a deposit after the address expired is sent back too, after the off-ramp failed', async () => {
    const user = await endUser('100');
    const started = await initiate('25', user.address);
    const expired = await settled(started.transactionId);
    expect(expired).toMatchObject({ status: 'failed', failureReason: 'DEPOSIT_EXPIRED' });
    const late = await user.pay(started.depositAddress, '25');
    const refunded = (
      await eventually(
        () => api.get(`/offramp/${started.transactionId}`),
        (response) => response.body.data.refundTransactionHash !== undefined,
        30_000,
      )
    ).body.data;
    expect(refunded).toMatchObject({ status: 'failed', depositTransactionHash: late });
    expect((await receiptOf(refunded.refundTransactionHash)).status).toBe('success');
    await eventually(
      () => usdcOf(user.address),
      (balance) => balance === parseUnits('100', 6),
    );
  }, 60_000);

  it('the sandbox deposit is a real transfer from the faucet, recorded like any other', async () => {
    const started = await initiate('30', privateKeyToAccount(generatePrivateKey()).address);
    const deposited = await api.post(`/sandbox/offramp/${started.transactionId}/deposit`, {});
    expect(deposited.status).toBe(200);
    const hash = deposited.body.data.depositTransactionHash;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await receiptOf(hash)).status).toBe('success');
    expect((await settled(started.transactionId)).status).toBe('completed');
  }, 60_000);

  it('custodial: the wallet is debited, its tokens swapped to CNGN on the pools and the CNGN sent to the provider, every hash on chain', async () => {
    const walletId = (await api.post('/wallets', { chain: 'base' })).body.data.walletId;
    expect((await api.post(`/sandbox/wallets/${walletId}/fund`, { tokenSymbol: 'USDC', amount: '300' })).status).toBe(200);
    const provider = await cngnOf(SANDBOX_OFFRAMP_SETTLEMENT_ADDRESS);
    const quote = await quoteOf('120');
    const started = await api.post('/offramp/initiate', { quoteId: quote.quoteId, walletId });
    expect(started.status).toBe(201);
    const done = await settled(started.body.data.transactionId);
    expect(done.status).toBe('completed');
    expect(done.hashes.map(({ step, settlement }: any) => [step, settlement])).toEqual([
      ['swap', 'onchain'],
      ['settlement', 'onchain'],
    ]);
    await expectOnChain(started.body.data.transactionId, done, quote);
    expect(await cngnOf(SANDBOX_OFFRAMP_SETTLEMENT_ADDRESS)).toBe(provider + parseUnits(dec(quote.payoutAmount).add(quote.fees.providerFee).toFixed(), 6));
    const balances = (await api.get(`/wallets/${walletId}`)).body.data.balances;
    expect(balances.find((entry: any) => entry.tokenSymbol === 'USDC')).toMatchObject({ available: '180', held: '0' });
  }, 60_000);

  it('a pool moved past the tolerance after the quote: the swap reverts on chain, the off-ramp fails with SWAP_FAILED and the wallet has all its tokens', async () => {
    const walletId = (await api.post('/wallets', { chain: 'base' })).body.data.walletId;
    expect((await api.post(`/sandbox/wallets/${walletId}/fund`, { tokenSymbol: 'USDC', amount: '100' })).status).toBe(200);
    const quote = await quoteOf('100');
    // Someone buys CNGN with 20,000 USDC: the same 100 USDC now buys far less than the quote's Naira less 1%.
    const trader = await poolTrader(api, 'base', base.rpcUrl, 'CNGN', '20000');
    await trader.push();
    try {
      const started = await api.post('/offramp/initiate', { quoteId: quote.quoteId, walletId });
      expect(started.status).toBe(201);
      const failed = await settled(started.body.data.transactionId);
      expect(failed).toMatchObject({ status: 'failed', failureReason: 'SWAP_FAILED' });
      expect(failed.errorMessage).toMatch(/swap to CNGN failed: .*reverted on chain|swap to CNGN failed: .*refused/);
      expect(failed.hashes ?? []).toEqual([]);
      const balances = (await api.get(`/wallets/${walletId}`)).body.data.balances;
      expect(balances.find((entry: any) => entry.tokenSymbol === 'USDC')).toMatchObject({ available: '100', held: '0' });
    } finally {
      await trader.restore();
    }
  }, 90_000);

  it('after deposits, sweeps and refunds, the books of the chain equal the chain to the base unit', async () => {
    const check = await ledgerCheck();
    expect(check.chains.find((environment) => environment.environment === 'test')!.drifts).toEqual([]);
    expect(check.ok).toBe(true);
  }, 60_000);
});
