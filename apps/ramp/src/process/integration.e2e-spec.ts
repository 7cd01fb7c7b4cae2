import { connect, type NatsConnection } from 'nats';
import { makeNuban } from '@ramp/banking';
import type { IntegrationEvent } from '@ramp/contracts';
import { ApiClient, createKey, integrationEventsFor, startServices, stopAll, type ServiceProcess } from '@ramp/testing';

describe('integration events - offramp.completed and offramp.failed, once each, with the webhook payload', () => {
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let nc: NatsConnection;

  beforeAll(async () => {
    services = await startServices(['quote', 'ledger', 'ramp', 'gateway'], { SANDBOX_STEP_DELAY_MS: '0' });
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, (await createKey({ plan: 'enterprise' })).apiKey);
    nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
  });

  afterAll(async () => {
    await nc.drain();
    await stopAll(services.values());
  });

  const publishedFor = (ids: string[]) => integrationEventsFor(nc, ids);

  it('publishes each terminal event once on integration.<type>.<outcome>', async () => {
    const walletId = (await api.post('/wallets', { chain: 'base' })).body.data.walletId;
    await api.post(`/sandbox/wallets/${walletId}/fund`, { tokenSymbol: 'USDC', amount: '100' });
    // The sandbox bank rejects payouts to accounts of the serial 888888888: the off-ramp fails after its swap.
    const start = async (amount: string, serial = '012345678') => {
      const quote = (await api.post('/offramp/quote', { amount, tokenSymbol: 'USDC', bankCode: '058', accountNumber: makeNuban('058', serial), chain: 'base' }))
        .body.data;
      return (await api.post('/offramp/initiate', { quoteId: quote.quoteId, walletId, reference: `ref-${amount}` })).body.data.transactionId as string;
    };
    const completed = await start('10');
    const failed = await start('13', '888888888');

    let events: IntegrationEvent[] = [];
    const deadline = Date.now() + 20_000;
    while (events.length < 2 && Date.now() < deadline) {
      await new Promise((wait) => setTimeout(wait, 200));
      events = await publishedFor([completed, failed]);
    }
    expect(events.map((event) => event.event).sort()).toEqual(['offramp.completed', 'offramp.failed']);
    const done = events.find((event) => event.event === 'offramp.completed')!;
    expect(done).toMatchObject({
      event: 'offramp.completed',
      data: {
        transactionId: completed,
        reference: 'ref-10',
        type: 'offramp',
        status: 'completed',
        amount: '10',
        tokenSymbol: 'USDC',
        chain: 'base',
        fiatCurrency: 'NGN',
        walletId,
      },
    });
    expect(done.data.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(Date.parse(done.timestamp)).not.toBeNaN();
    const lost = events.find((event) => event.event === 'offramp.failed')!;
    expect(lost.data).toMatchObject({ transactionId: failed, status: 'failed', errorMessage: expect.stringMatching(/bank payout was rejected/) });

    // Still once each a moment later: nothing published twice.
    await new Promise((wait) => setTimeout(wait, 500));
    expect(await publishedFor([completed, failed])).toHaveLength(2);
  });
});
