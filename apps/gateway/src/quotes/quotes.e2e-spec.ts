import Decimal from 'decimal.js';
import { makeNuban } from '@ramp/banking';
import { ApiClient, createKey, expectError, startServices, stopAll, type ServiceProcess } from '@ramp/testing';

/** The spec's off-ramp fee rules, written again here from API-SPEC.md so the test checks the service against the spec. */
function specOfframpFees(fiat: Decimal, token: string) {
  const processing = Decimal.min(fiat.mul('0.001'), 200).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  const stampDuty = fiat.gte(10000) ? new Decimal(50) : new Decimal(0);
  const swap = token === 'CNGN' ? new Decimal(0) : new Decimal(20);
  const total = new Decimal(20).add(processing).add(stampDuty).add(swap);
  return { providerFee: processing.add(stampDuty).toFixed(2), platformFee: '20.00', swapFee: swap.toFixed(2), totalFee: total.toFixed(2) };
}

describe('quotes - every endpoint through HTTP', () => {
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  const gtbAccount = makeNuban('058', '012345678');

  beforeAll(async () => {
    services = await startServices(['quote', 'gateway']);
    const key = await createKey({ plan: 'enterprise' });
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, key.apiKey);
  });

  afterAll(async () => {
    await stopAll(services.values());
  });

  it('quotes an off-ramp with the spec fees, the verified account name and a 5-minute expiry', async () => {
    const before = Date.now();
    const response = await api.post('/offramp/quote', { amount: '100', tokenSymbol: 'USDC', bankCode: '058', accountNumber: gtbAccount, chain: 'base' });
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
    const quote = response.body.data;
    expect(quote.quoteId).toMatch(/^qt_[0-9A-Z]{26}$/);
    expect(quote).toMatchObject({ cryptoAmount: '100', tokenSymbol: 'USDC', chain: 'base', fiatCurrency: 'NGN' });
    const fiat = new Decimal(quote.cryptoAmount).mul(quote.rate).toDecimalPlaces(2, Decimal.ROUND_DOWN);
    expect(quote.fiatAmount).toBe(fiat.toFixed(2));
    expect(quote.fees).toEqual(specOfframpFees(fiat, 'USDC'));
    expect(quote.payoutAmount).toBe(fiat.sub(quote.fees.totalFee).toFixed(2));
    expect(quote.bankAccount).toMatchObject({ bankCode: '058', accountNumber: gtbAccount, bankName: expect.stringMatching(/Guaranty Trust/) });
    expect(quote.bankAccount.accountName).toMatch(/^[A-Z]+ [A-Z]+/);
    const expires = Date.parse(quote.expiresAt) - before;
    expect(expires).toBeGreaterThan(295_000);
    expect(expires).toBeLessThan(305_000);
  });

  it('applies stamp duty from 10,000 NGN and no swap fee for CNGN', async () => {
    const below = await api.post('/offramp/quote', { amount: '9999.99', tokenSymbol: 'CNGN', bankCode: '058', accountNumber: gtbAccount, chain: 'bsc' });
    expect(below.status).toBe(200);
    expect(below.body.data.fees).toEqual({ providerFee: '10.00', platformFee: '20.00', swapFee: '0.00', totalFee: '30.00' });
    const at = await api.post('/offramp/quote', { amount: '10000', tokenSymbol: 'CNGN', bankCode: '058', accountNumber: gtbAccount, chain: 'bsc' });
    expect(at.body.data.fees).toEqual({ providerFee: '60.00', platformFee: '20.00', swapFee: '0.00', totalFee: '80.00' });
    const capped = await api.post('/offramp/quote', { amount: '1000000', tokenSymbol: 'CNGN', bankCode: '058', accountNumber: gtbAccount, chain: 'base' });
    expect(capped.body.data.fees.providerFee).toBe('250.00');
  });

  it('quotes an on-ramp: fees on the Naira paid, the rest converted at the rate, cut to the token decimals', async () => {
    const response = await api.post('/onramp/quote', { amount: '50000', tokenSymbol: 'USDC', chain: 'base' });
    expect(response.status).toBe(200);
    const quote = response.body.data;
    expect(quote).toMatchObject({ fiatAmount: '50000.00', fiatCurrency: 'NGN', tokenSymbol: 'USDC', chain: 'base' });
    expect(quote.fees.swapFee).toBe('20.00');
    // Priced on base's pools (the rate is what the Naira after fees got there, to 8 places): the rate converts the
    // Naira after fees into the token amount, to within the rate's rounding.
    const expected = new Decimal('50000').sub(quote.fees.totalFee).div(quote.rate);
    expect(new Decimal(quote.cryptoAmount).sub(expected).abs().lte(expected.mul('1e-9').add('0.000001'))).toBe(true);
    expect(quote.cryptoAmount).toMatch(/^\d+(\.\d{1,6})?$/);
    const cngn = await api.post('/onramp/quote', { amount: '50000', tokenSymbol: 'CNGN', chain: 'bsc' });
    expect(cngn.body.data.fees.swapFee).toBe('0.00');
    expect(cngn.body.data.rate).toBe('1');
  });

  it('quotes same-chain and cross-chain swaps with route and fees', async () => {
    const same = await api.post('/swap/quote', { fromToken: 'USDC', toToken: 'ETH', amount: '250', fromChain: 'base', toChain: 'base', slippage: 1 });
    expect(same.status).toBe(200);
    expect(same.body.data).toMatchObject({ fromToken: 'USDC', toToken: 'ETH', fromAmount: '250', isCrossChain: false, slippage: 1 });
    expect(Number(same.body.data.fees.bridgeFee)).toBe(0);
    expect(same.body.data.route.steps).toBe(1);
    expect(new Decimal(same.body.data.minimumToAmount).lt(same.body.data.toAmount)).toBe(true);

    const cross = await api.post('/swap/quote', { fromToken: 'USDC', toToken: 'USDT', amount: '250', fromChain: 'base', toChain: 'bsc' });
    expect(cross.status).toBe(200);
    expect(cross.body.data.isCrossChain).toBe(true);
    expect(new Decimal(cross.body.data.fees.bridgeFee).gt(0)).toBe(true);
    expect(cross.body.data.route.steps).toBeGreaterThan(1);
    expect(cross.body.data.route.providers.length).toBeGreaterThan(0);
  });

  it('quotes transfers to EVM and Solana addresses, with and without a destination token', async () => {
    const arbitrum = await api.post('/transfer/quote', {
      fromChain: 'base',
      toChain: 'arbitrum',
      token: 'USDC',
      amount: '100',
      destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    });
    expect(arbitrum.status).toBe(200);
    expect(arbitrum.body.data).toMatchObject({ fromToken: 'USDC', toToken: 'USDC', fromChain: 'base', toChain: 'arbitrum' });
    expect(typeof arbitrum.body.data.route.bridge).toBe('string');
    const solana = await api.post('/transfer/quote', {
      fromChain: 'bsc',
      toChain: 'solana',
      token: 'USDT',
      toToken: 'SOL',
      amount: '100',
      destinationAddress: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    });
    expect(solana.status).toBe(200);
    expect(solana.body.data).toMatchObject({ toToken: 'SOL', toChain: 'solana' });
    expect(solana.body.data.route.steps).toBe(2);
  });

  it('lists banks, verifies an account and lists the seven chains', async () => {
    const banks = await api.get('/onramp/banks');
    expect(banks.status).toBe(200);
    expect(banks.body.data).toEqual(expect.arrayContaining([{ code: '058', name: expect.stringMatching(/Guaranty Trust/) }]));
    const verified = await api.post('/onramp/banks/verify', { bankCode: '058', accountNumber: gtbAccount });
    expect(verified.status).toBe(200);
    expect(verified.body.data).toMatchObject({ bankCode: '058', accountNumber: gtbAccount });
    const again = await api.post('/onramp/banks/verify', { bankCode: '058', accountNumber: gtbAccount });
    expect(again.body.data.accountName).toBe(verified.body.data.accountName);
    const chains = await api.get('/transfer/chains');
    expect(chains.status).toBe(200);
    expect(chains.body.data.map((chain: { chain: string }) => chain.chain).sort()).toEqual([
      'arbitrum',
      'avalanche',
      'base',
      'bsc',
      'ethereum',
      'polygon',
      'solana',
    ]);
    const base = chains.body.data.find((chain: { chain: string }) => chain.chain === 'base');
    // A test key sees the test chain (Base Sepolia's id, on the local node) with the platform's test tokens.
    expect(base).toMatchObject({ chainId: 84532, type: 'primary', settlement: 'onchain' });
    // Its transactions are on the local node alone: no public explorer is offered for them; a rail keeps the registry's.
    expect(base).not.toHaveProperty('explorerUrl');
    expect(chains.body.data.find((chain: { chain: string }) => chain.chain === 'solana')).toMatchObject({
      settlement: 'simulated',
      explorerUrl: 'https://solscan.io',
    });
    expect(base.tokens).toEqual(
      expect.arrayContaining([expect.objectContaining({ symbol: 'USDC', decimals: 6, contractAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) })]),
    );
    expect(base.tokens.find((token: { symbol: string }) => token.symbol === 'USDC').contractAddress).not.toBe('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
  });

  const offramp = { amount: '100', tokenSymbol: 'USDC', bankCode: '058', accountNumber: makeNuban('058', '012345678'), chain: 'base' };
  const badInputs: [string, string, Record<string, unknown>, string][] = [
    ['/offramp/quote', 'missing amount', { ...offramp, amount: undefined }, 'amount'],
    ['/offramp/quote', 'negative amount', { ...offramp, amount: '-5' }, 'amount'],
    ['/offramp/quote', 'zero amount', { ...offramp, amount: '0' }, 'amount'],
    ['/offramp/quote', 'exponent', { ...offramp, amount: '1e3' }, 'amount'],
    ['/offramp/quote', 'too many decimals for USDC', { ...offramp, amount: '1.1234567' }, 'amount'],
    ['/offramp/quote', 'amount as a number', { ...offramp, amount: 100 }, 'amount'],
    ['/offramp/quote', 'unknown token', { ...offramp, tokenSymbol: 'DOGE' }, 'tokenSymbol'],
    ['/offramp/quote', 'token not on the chain', { ...offramp, tokenSymbol: 'BNB' }, 'tokenSymbol'],
    ['/offramp/quote', 'chain not base or bsc', { ...offramp, chain: 'ethereum' }, 'chain'],
    ['/offramp/quote', 'unknown chain', { ...offramp, chain: 'mars' }, 'chain'],
    ['/offramp/quote', '9-digit account', { ...offramp, accountNumber: '012345678' }, 'accountNumber'],
    [
      '/offramp/quote',
      'wrong check digit',
      { ...offramp, accountNumber: `${offramp.accountNumber.slice(0, 9)}${(Number(offramp.accountNumber[9]) + 1) % 10}` },
      'accountNumber',
    ],
    ['/offramp/quote', 'unknown bank', { ...offramp, bankCode: '999' }, 'bankCode'],
    ['/offramp/quote', 'below the minimum', { ...offramp, amount: '0.5' }, 'amount'],
    ['/onramp/quote', 'kobo beyond 2 places', { amount: '5000.001', tokenSymbol: 'USDC', chain: 'base' }, 'amount'],
    ['/onramp/quote', 'on-ramp chain not primary', { amount: '5000', tokenSymbol: 'USDC', chain: 'polygon' }, 'chain'],
    ['/swap/quote', 'same token on the same chain', { fromToken: 'USDC', toToken: 'USDC', amount: '10', fromChain: 'base', toChain: 'base' }, 'toToken'],
    ['/swap/quote', 'slippage too high', { fromToken: 'USDC', toToken: 'ETH', amount: '10', fromChain: 'base', toChain: 'base', slippage: 75 }, 'slippage'],
    ['/swap/quote', 'slippage as text', { fromToken: 'USDC', toToken: 'ETH', amount: '10', fromChain: 'base', toChain: 'base', slippage: 'lots' }, 'slippage'],
    [
      '/transfer/quote',
      'source chain not primary',
      { fromChain: 'ethereum', toChain: 'base', token: 'USDC', amount: '10', destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' },
      'fromChain',
    ],
    ['/transfer/quote', 'no destination across chains', { fromChain: 'base', toChain: 'arbitrum', token: 'USDC', amount: '10' }, 'destinationAddress'],
    [
      '/transfer/quote',
      'bad EVM checksum',
      { fromChain: 'base', toChain: 'arbitrum', token: 'USDC', amount: '10', destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' },
      'destinationAddress',
    ],
    [
      '/transfer/quote',
      'EVM address to Solana',
      { fromChain: 'base', toChain: 'solana', token: 'USDC', amount: '10', destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' },
      'destinationAddress',
    ],
    ['/onramp/banks/verify', 'letters in the account', { bankCode: '058', accountNumber: '01234ABCDE' }, 'accountNumber'],
  ];

  it.each(badInputs)('%s with %s answers 400 INVALID_REQUEST naming %s', async (path, _case, body, field) => {
    expectError(await api.post(path, body), 400, 'INVALID_REQUEST', field);
  });
});
