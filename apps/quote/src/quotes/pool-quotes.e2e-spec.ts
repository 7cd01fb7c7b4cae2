import { Client } from 'pg';
import { createPublicClient, getAddress, http, parseUnits, type Address, type PublicClient } from 'viem';
import { makeNuban } from '@ramp/banking';
import { Config } from '@ramp/config';
import { UniswapV2Router02 } from '@ramp/evm';
import { dec } from '@ramp/money';
import { AnvilNode, ApiClient, freshStack, poolTrader, runCompiled, startServices, stopAll, TEST_DATABASE_URL, type ServiceProcess } from '@ramp/testing';

/**
 * Quotes priced from the pools of the local test chains (Uniswap V2, deployed and seeded by the chain service): what
 * the router would give for the amount after fees, so that a large trade shows its price impact and a trade by anyone
 * in the pool moves the next quote.
 */
describe('pool-priced quotes - swaps and transfers quoted from the real pools of the test chains', () => {
  // Chains and a stack of their own: the pools start at the sandbox prices, wherever the other suites' loads moved the
  // shared chains' pools (which nobody arbitrages), so that how far a pool may be from the market is this suite's to set.
  const nodes = [new AnvilNode({ chainId: 84532 }), new AnvilNode({ chainId: 97 }), new AnvilNode({ chainId: 421614 })];
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = '/ramp_pool_quotes_test';
  const databaseUrl = url.toString();
  let testChains: { chain: string; rpcUrl: string }[];
  let base: { chain: string; rpcUrl: string };
  let client: PublicClient;
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let chains: Record<string, any>;
  const token = (chain: string, symbol: string): Address =>
    getAddress(chains[chain].tokens.find((candidate: any) => candidate.symbol === symbol).contractAddress);

  beforeAll(async () => {
    await Promise.all(nodes.map((node) => node.start()));
    await freshStack(databaseUrl, 'poolquotes');
    testChains = ['base', 'bsc', 'arbitrum'].map((chain, index) => ({ chain, rpcUrl: nodes[index]!.rpcUrl }));
    base = testChains[0]!;
    client = createPublicClient({ transport: http(base.rpcUrl) }) as PublicClient;
    services = await startServices(['quote', 'gateway'], {
      DATABASE_URL: databaseUrl,
      EVENTS_NAMESPACE: 'poolquotes',
      TEST_CHAINS: JSON.stringify(Object.fromEntries(testChains.map((chain, index) => [chain.chain, { rpcUrl: chain.rpcUrl, localPort: nodes[index]!.port }]))),
      // The default, whatever the run sets for the suites that share chains.
      POOL_PRICE_TOLERANCE_PERCENT: '10',
    });
    const key = await runCompiled('dist/apps/gateway/src/cli/keys.js', ['create', '--org', `Pool quotes ${Date.now()}`, '--env', 'test'], {
      DATABASE_URL: databaseUrl,
    });
    expect(key.code).toBe(0);
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, JSON.parse(key.stdout).apiKey);
    chains = Object.fromEntries((await api.get('/transfer/chains')).body.data.map((chain: any) => [chain.chain, chain]));
  }, 120_000);

  afterAll(async () => {
    await stopAll(services?.values() ?? []);
    await Promise.all(nodes.map((node) => node.stop()));
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query('drop database if exists ramp_pool_quotes_test with (force)');
    await admin.end();
  });

  /** What the router gives now for `amount` of `from` into `to` on base, through the hub. */
  const routerOut = async (from: string, to: string, amount: string, fromDecimals: number) => {
    const wrapped = (symbol: string) => (symbol === 'ETH' ? getAddress(chains.base.dex.wrappedNative) : token('base', symbol));
    const path = from === 'USDC' || to === 'USDC' ? [wrapped(from), wrapped(to)] : [wrapped(from), token('base', 'USDC'), wrapped(to)];
    const amounts = await client.readContract({
      address: chains.base.dex.router,
      abi: UniswapV2Router02.abi,
      functionName: 'getAmountsOut',
      args: [parseUnits(amount, fromDecimals), path],
    });
    return amounts[amounts.length - 1]!;
  };
  const swapQuote = async (fromToken: string, toToken: string, amount: string) => {
    const quoted = await api.post('/swap/quote', { fromChain: 'base', toChain: 'base', fromToken, toToken, amount });
    expect(quoted.status).toBe(200);
    return quoted.body.data;
  };

  it("shows each test chain's DEX, whose router is on the chain", async () => {
    for (const settings of testChains) {
      expect(chains[settings.chain].dex).toMatchObject({ name: 'Uniswap V2', hub: 'USDC' });
      const node = createPublicClient({ transport: http(settings.rpcUrl) });
      expect(await node.getCode({ address: chains[settings.chain].dex.router })).toMatch(/^0x[0-9a-f]{100,}/);
    }
    expect(testChains.map((settings) => settings.chain)).toEqual(['base', 'bsc', 'arbitrum']);
    expect(chains.solana.dex).toBeUndefined();
  });

  it("prices a swap at what the router gives for the amount after the platform's fee, to the base unit", async () => {
    const quote = await swapQuote('USDC', 'CNGN', '1000');
    // 1,000 USDC less 0.3% is 997 USDC into the CNGN/USDC pool (1,500 NGN to the dollar, less the pool's 0.3%): near it,
    // within what the ramps and trades of the suites before this one moved the shared pool.
    expect(parseUnits(quote.toAmount, 6)).toBe(await routerOut('USDC', 'CNGN', '997', 6));
    expect(
      dec(quote.toAmount)
        .sub(dec(997 * 1500).mul('0.997'))
        .abs()
        .lessThan(dec(997 * 1500).mul('0.01')),
    ).toBe(true);
  });

  it('shows the price impact of a large trade in toAmount and rate', async () => {
    const small = await swapQuote('USDC', 'ETH', '100');
    // The largest swap a quote takes (50,000 USDC) is a fortieth of the pool's USDC side: about 2.4% less ETH per dollar.
    const large = await swapQuote('USDC', 'ETH', '50000');
    expect(dec(large.rate).lessThan(dec(small.rate).mul('0.98'))).toBe(true);
    expect(dec(large.rate).greaterThan(dec(small.rate).mul('0.97'))).toBe(true);
    expect(
      dec(large.toAmount).lessThan(
        dec(50000 * 0.997)
          .div(3200)
          .mul('0.98'),
      ),
    ).toBe(true);
  });

  it("moves with the pool: after anyone's trade, the next quote gives less; a pool moved far from the market quotes nothing until it is back", async () => {
    const before = await swapQuote('USDC', 'ETH', '1000');
    const cacheAge = () => new Promise((resolve) => setTimeout(resolve, Number(new Config().string('chainPoolsMaxAgeMs')) * 2 + 50));
    // 40,000 USDC buys about 2% of the pool's ETH: its price rises about 4%, within the 10% tolerance.
    const trader = await poolTrader(api, 'base', base.rpcUrl, 'ETH', '40000');
    await trader.push();
    try {
      await cacheAge();
      const after = await swapQuote('USDC', 'ETH', '1000');
      expect(dec(after.toAmount).lessThan(dec(before.toAmount).mul('0.97'))).toBe(true);
      expect(parseUnits(after.toAmount, 18)).toBe(await routerOut('USDC', 'ETH', '997', 6));
    } finally {
      // Sold back: the pool is shared by the suites that follow.
      await trader.restore();
    }
    // 300,000 USDC buys about 81 of the pool's 625 ETH: its price is a third above the market's. No quote is priced
    // from it (someone could have moved it to be quoted there); the same request quotes again once it is back.
    const mover = await poolTrader(api, 'base', base.rpcUrl, 'ETH', '300000');
    await mover.push();
    try {
      await cacheAge();
      const refused = await api.post('/swap/quote', { fromChain: 'base', toChain: 'base', fromToken: 'USDC', toToken: 'ETH', amount: '1000' });
      expect([refused.status, refused.body.error?.code, refused.body.error?.reason]).toEqual([503, 'SERVICE_UNAVAILABLE', 'PRICE_DEVIATION']);
      expect(refused.body.error.message).toMatch(/^The ETH pool on base is priced \d+(\.\d)?% away from the market \(more than 10%\)/);
      // Any quote through that pool: an on-ramp to ETH too; one that does not go through it is given.
      expect((await api.post('/onramp/quote', { amount: '500000', tokenSymbol: 'ETH', chain: 'base' })).body.error?.reason).toBe('PRICE_DEVIATION');
      expect((await api.post('/swap/quote', { fromChain: 'base', toChain: 'base', fromToken: 'USDC', toToken: 'CNGN', amount: '10' })).status).toBe(200);
    } finally {
      await mover.restore();
    }
    await cacheAge();
    // Back within the fees the trades left in the pool.
    const restored = await swapQuote('USDC', 'ETH', '1000');
    expect(dec(restored.toAmount).sub(before.toAmount).abs().lessThan(dec(before.toAmount).mul('0.005'))).toBe(true);
  });

  it("prices a transfer with a destination swap on the destination chain's pool", async () => {
    const quoted = await api.post('/transfer/quote', {
      fromChain: 'bsc',
      toChain: 'base',
      token: 'USDC',
      toToken: 'CNGN',
      amount: '100',
      destinationAddress: '0x000000000000000000000000000000000000dEaD',
    });
    expect(quoted.status).toBe(200);
    const { fromAmount, fees, toAmount } = quoted.body.data;
    // What the bridge carries (the amount less the fees) goes through base's CNGN/USDC pool.
    const carried = dec(fromAmount).sub(fees.totalFee).toFixed();
    expect(parseUnits(toAmount, 6)).toBe(await routerOut('USDC', 'CNGN', carried, 6));
  });

  it("prices a ramp's swap leg on the pools: an off-ramp's Naira is what the crypto buys of CNGN, an on-ramp's crypto what the Naira after fees buys", async () => {
    const offramp = (
      await api.post('/offramp/quote', { amount: '0.5', tokenSymbol: 'ETH', bankCode: '058', accountNumber: makeNuban('058', '012345678'), chain: 'base' })
    ).body.data;
    expect(offramp.fiatAmount).toBeDefined();
    // 0.5 ETH through ETH/USDC then USDC/CNGN, cut down to the kobo.
    const cngn = await routerOut('ETH', 'CNGN', '0.5', 18);
    expect(dec(offramp.fiatAmount).toFixed(2)).toBe(dec(cngn.toString()).div(1e6).toDecimalPlaces(2, 1).toFixed(2));
    const onramp = (await api.post('/onramp/quote', { amount: '100000', tokenSymbol: 'USDC', chain: 'base' })).body.data;
    const net = dec(onramp.fiatAmount).sub(onramp.fees.totalFee).toFixed();
    expect(parseUnits(onramp.cryptoAmount, 6)).toBe(await routerOut('CNGN', 'USDC', net, 6));
    // The largest on-ramp shows the pool's price impact in its rate (Naira per token): what the router gives for it.
    const large = (await api.post('/onramp/quote', { amount: '50000000', tokenSymbol: 'USDC', chain: 'base' })).body.data;
    expect(parseUnits(large.cryptoAmount, 6)).toBe(await routerOut('CNGN', 'USDC', dec(large.fiatAmount).sub(large.fees.totalFee).toFixed(), 6));
    expect(dec(large.rate).greaterThan(dec(onramp.rate))).toBe(true);
  });

  it('refuses a quote on the pools while they cannot be read (the chain service down): 503, never a price from the feed they may have left', async () => {
    await services.get('chain')!.kill();
    // Past what the quote service keeps of its last answer.
    await new Promise((resolve) => setTimeout(resolve, Number(new Config().string('chainPoolsMaxAgeMs')) + 50));
    const quoted = await api.post('/swap/quote', { fromChain: 'base', toChain: 'base', fromToken: 'USDC', toToken: 'ETH', amount: '250' });
    expect([quoted.status, quoted.body.error?.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    // A ramp's swap runs on the pools too.
    const onramp = await api.post('/onramp/quote', { amount: '100000', tokenSymbol: 'USDC', chain: 'base' });
    expect([onramp.status, onramp.body.error?.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    await services.get('chain')!.start();
    const back = await api.post('/swap/quote', { fromChain: 'base', toChain: 'base', fromToken: 'USDC', toToken: 'ETH', amount: '250' });
    expect(back.status).toBe(200);
  });
});
