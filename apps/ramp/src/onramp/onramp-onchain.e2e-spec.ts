import { createPublicClient, erc20Abi, getAddress, http, parseEventLogs, parseUnits, zeroAddress, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Config } from '@ramp/config';
import { resolveChains, UniswapV2Pair } from '@ramp/evm';
import { dec } from '@ramp/money';
import { ApiClient, createKey, eventually, ledgerCheck, poolTrader, startServices, stopAll, type ServiceProcess } from '@ramp/testing';

/**
 * On-ramps on the local test chain: once the Naira arrives, the sandbox issuer mints the CNGN into the treasury (the
 * hot wallet), the treasury swaps it to the bought token through the pools, and the quoted amount is credited to the
 * managed wallet or transferred to the destination address. Every hash is a transaction on the chain; a pool moved past
 * the tolerance reverts the swap and the Naira is refunded.
 */
describe('on-ramp - mint, swap and delivery on a real chain', () => {
  const base = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS').find((chain) => chain.chain === 'base')!;
  const client = createPublicClient({ transport: http(base.rpcUrl) });
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let network: any;

  beforeAll(async () => {
    services = await startServices(['quote', 'ledger', 'ramp', 'gateway'], { SANDBOX_STEP_DELAY_MS: '50', SANDBOX_DEPOSIT_WINDOW_SECONDS: '30' });
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, (await createKey({ plan: 'enterprise' })).apiKey);
    network = (await api.get('/transfer/chains')).body.data.find((chain: any) => chain.chain === 'base');
  }, 60_000);

  afterAll(async () => {
    await stopAll(services.values());
  });

  const tokenOf = (symbol: string) => getAddress(network.tokens.find((token: any) => token.symbol === symbol).contractAddress) as Address;
  const receiptOf = (hash: Hex) => client.getTransactionReceipt({ hash });
  const transfersIn = async (hash: Hex, token: Address) =>
    parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: (await receiptOf(hash)).logs }).filter((log) => getAddress(log.address) === token);
  const hashOf = (done: any, step: string) => done.hashes.find((hash: any) => hash.step === step)?.transactionHash as Hex;

  const paid = async (amount: string, tokenSymbol: string, to: { walletId: string } | { destinationAddress: string }) => {
    const quote = (await api.post('/onramp/quote', { amount, tokenSymbol, chain: 'base' })).body.data;
    const started = await api.post('/onramp/initiate', { quoteId: quote.quoteId, ...to });
    expect(started.status).toBe(201);
    expect((await api.post(`/sandbox/onramp/${started.body.data.id}/pay`, {})).status).toBe(200);
    const done = (
      await eventually(
        () => api.get(`/onramp/${started.body.data.id}`),
        (response) => response.body.data.status !== 'pending',
        30_000,
      )
    ).body.data;
    return { quote, done };
  };

  /** The mint is the sandbox issuer's CNGN minted into the hot wallet (its recipient, answered): the Naira less the fees. */
  async function expectMint(done: any, quote: any): Promise<Address> {
    const [minted] = await transfersIn(hashOf(done, 'mint'), tokenOf('CNGN'));
    expect(getAddress(minted!.args.from)).toBe(zeroAddress);
    expect(minted!.args.value).toBe(parseUnits(dec(quote.fiatAmount).sub(quote.fees.totalFee).toFixed(), 6));
    return getAddress(minted!.args.to);
  }

  /** The swap went through the pools into the hot wallet, and gave at least the quoted amount less 1%. */
  async function expectSwap(done: any, quote: any, symbol: string, decimals: number, hotWallet: Address) {
    const hash = hashOf(done, 'swap');
    expect((await receiptOf(hash)).status).toBe('success');
    expect(parseEventLogs({ abi: UniswapV2Pair.abi, eventName: 'Swap', logs: (await receiptOf(hash)).logs }).length).toBeGreaterThan(0);
    const out = (await transfersIn(hash, tokenOf(symbol))).at(-1)!;
    expect(getAddress(out.args.to)).toBe(hotWallet);
    expect(out.args.value >= parseUnits(dec(quote.cryptoAmount).mul('0.99').toFixed(decimals, 1), decimals)).toBe(true);
  }

  it('to a managed wallet: CNGN minted into the treasury, swapped to USDC on the pools, the quoted USDC credited; every hash on chain', async () => {
    const walletId = (await api.post('/wallets', { chain: 'base' })).body.data.walletId;
    const { quote, done } = await paid('150000', 'USDC', { walletId });
    expect(done.status).toBe('completed');
    expect(done.hashes.map(({ step, settlement }: any) => [step, settlement])).toEqual([
      ['mint', 'onchain'],
      ['swap', 'onchain'],
      ['delivery', 'onchain'],
    ]);
    await expectSwap(done, quote, 'USDC', 6, await expectMint(done, quote));
    // A managed wallet's delivery is the ledger's credit of tokens the swap put in the hot wallet: the swap's hash.
    expect(hashOf(done, 'delivery')).toBe(hashOf(done, 'swap'));
    const balances = (await api.get(`/wallets/${walletId}`)).body.data.balances;
    expect(balances.find((entry: any) => entry.tokenSymbol === 'USDC')).toMatchObject({ available: quote.cryptoAmount, held: '0' });
  }, 60_000);

  it('to an address: swapped to USDT through the hub, then the quoted USDT transferred to the address', async () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const { quote, done } = await paid('80000', 'USDT', { destinationAddress: address });
    expect(done.status).toBe('completed');
    const hotWallet = await expectMint(done, quote);
    await expectSwap(done, quote, 'USDT', 6, hotWallet);
    const [delivered] = await transfersIn(hashOf(done, 'delivery'), tokenOf('USDT'));
    expect(getAddress(delivered!.args.from)).toBe(hotWallet);
    expect(getAddress(delivered!.args.to)).toBe(address);
    expect(done.transactionHash).toBe(hashOf(done, 'delivery'));
    expect(await client.readContract({ address: tokenOf('USDT'), abi: erc20Abi, functionName: 'balanceOf', args: [address] })).toBe(
      parseUnits(quote.cryptoAmount, 6),
    );
  }, 60_000);

  it('CNGN to an address needs no swap: minted into the treasury, then transferred', async () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const { quote, done } = await paid('25000', 'CNGN', { destinationAddress: address });
    expect(done.status).toBe('completed');
    expect(done.hashes.map(({ step }: any) => step)).toEqual(['mint', 'delivery']);
    await expectMint(done, quote);
    expect(await client.readContract({ address: tokenOf('CNGN'), abi: erc20Abi, functionName: 'balanceOf', args: [address] })).toBe(
      parseUnits(quote.cryptoAmount, 6),
    );
  }, 60_000);

  it('a pool moved past the tolerance after the quote: the swap reverts, the Naira is refunded, nothing is credited', async () => {
    const walletId = (await api.post('/wallets', { chain: 'base' })).body.data.walletId;
    const quote = (await api.post('/onramp/quote', { amount: '100000', tokenSymbol: 'ETH', chain: 'base' })).body.data;
    // Someone buys ETH with 20,000 USDC: the CNGN now buys far less ETH than quoted.
    const trader = await poolTrader(api, 'base', base.rpcUrl, 'ETH', '20000');
    await trader.push();
    try {
      const started = await api.post('/onramp/initiate', { quoteId: quote.quoteId, walletId });
      expect((await api.post(`/sandbox/onramp/${started.body.data.id}/pay`, {})).status).toBe(200);
      const failed = (
        await eventually(
          () => api.get(`/onramp/${started.body.data.id}`),
          (response) => response.body.data.status !== 'pending',
          30_000,
        )
      ).body.data;
      expect(failed).toMatchObject({ status: 'failed', failureReason: 'SWAP_FAILED' });
      expect(failed.errorMessage).toMatch(/swap from CNGN failed/);
      expect(failed.hashes.map(({ step }: any) => step)).toEqual(['mint']);
      const balances = (await api.get(`/wallets/${walletId}`)).body.data.balances;
      expect(balances.find((entry: any) => entry.tokenSymbol === 'ETH')?.available ?? '0').toBe('0');
    } finally {
      await trader.restore();
    }
  }, 90_000);

  it('after mints, swaps and deliveries, the books of the chain equal the chain to the base unit', async () => {
    const check = await ledgerCheck();
    expect(check.ok).toBe(true);
    expect(check.chains.find((environment) => environment.environment === 'test')!.drifts).toEqual([]);
  }, 60_000);
});
