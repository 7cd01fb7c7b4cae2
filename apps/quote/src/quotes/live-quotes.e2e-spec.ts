import { makeNuban } from '@ramp/banking';
import { ApiClient, createKey, expectError, startServices, stopAll, type ServiceProcess } from '@ramp/testing';

/**
 * Live fails closed (LIVE.md, section 1): with live mode switched on at the gateway (LIVE_PROVIDERS_ENABLED) but no
 * live adapter for a capability, a live key's quote needing it is refused with a reason naming what is missing; it is
 * never priced from the sandbox's feed, routes or names. Test keys are served as ever.
 */
describe('live quotes - refused for every capability without a live adapter, never simulated', () => {
  let services: Map<string, ServiceProcess>;
  let live: ApiClient;
  let test: ApiClient;
  const requests = [
    ['/onramp/quote', { amount: '50000', tokenSymbol: 'USDC', chain: 'base' }, 'bank partner for collections'],
    ['/offramp/quote', { amount: '100', tokenSymbol: 'USDC', chain: 'base', bankCode: '058', accountNumber: makeNuban('058', '012345678') }, 'bank partner'],
    ['/swap/quote', { fromToken: 'USDC', toToken: 'USDT', amount: '100', fromChain: 'base', toChain: 'base' }, 'price source'],
    [
      '/transfer/quote',
      { token: 'USDC', amount: '100', fromChain: 'base', toChain: 'bsc', destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' },
      'price source',
    ],
  ] as const;

  beforeAll(async () => {
    services = await startServices(['quote', 'gateway'], { LIVE_PROVIDERS_ENABLED: 'true' });
    const gateway = `${services.get('gateway')!.url}/v1`;
    live = new ApiClient(gateway, (await createKey({ env: 'live' })).apiKey);
    test = new ApiClient(gateway, (await createKey()).apiKey);
  });

  afterAll(async () => {
    await stopAll(services?.values() ?? []);
  });

  it.each(requests)('refuses a live %s, naming what is missing, and quotes the same for a test key', async (path, body, missing) => {
    const refused = await live.post(path, body);
    expectError(refused, 403, 'FORBIDDEN');
    expect(refused.body.error).toMatchObject({ reason: 'LIVE_MODE_DISABLED', message: expect.stringContaining(missing) });
    expect(JSON.stringify(refused.body)).not.toContain('quoteId');
    const quoted = await test.post(path, body);
    expect(quoted.status).toBe(200);
    expect(quoted.body.data.quoteId).toMatch(/^qt_/);
  });
});
