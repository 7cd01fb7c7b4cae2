import { createSocket, type Socket } from 'dgram';
import { ApiClient, createKey, expectError, startServices, stopAll, type ServiceProcess } from '@ramp/testing';

/**
 * A tenant registering webhooks whose hosts' nameserver never answers: the notifier resolves at most 4 of one tenant's
 * at once (the rest are refused at once, 429), and another tenant's registration is not held behind them. The
 * notifier asks a nameserver on loopback that takes every query and never answers (WEBHOOK_DNS_SERVERS), so each
 * lookup ends at its own timeout and the registration goes through (checked again at every delivery).
 */
describe('webhook registration - lookups in flight per tenant', () => {
  let silent: Socket;
  let services: Map<string, ServiceProcess>;
  let url: string;

  beforeAll(async () => {
    silent = createSocket('udp4');
    silent.on('message', () => undefined);
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    services = await startServices(['notifier', 'gateway'], {
      WEBHOOK_DNS_SERVERS: `127.0.0.1:${silent.address().port}`,
      WEBHOOK_DNS_TIMEOUT_MS: '1500',
      WEBHOOK_DNS_TRIES: '1',
    });
    url = `${services.get('gateway')!.url}/v1`;
  }, 60_000);

  afterAll(async () => {
    await stopAll(services.values());
    silent.close();
  });

  it("resolves at most 4 of a tenant's registrations' hosts at once; another tenant's is not held behind them", async () => {
    const [one, other] = [new ApiClient(url, (await createKey()).apiKey), new ApiClient(url, (await createKey()).apiKey)];
    const hook = (i: number) => ({ url: `https://hook-${i}.example.com/events`, events: ['*'] });
    const [mine, theirs] = await Promise.all([Promise.all([0, 1, 2, 3, 4, 5].map((i) => one.post('/webhooks', hook(i)))), other.post('/webhooks', hook(6))]);
    expect(mine.map((response) => response.status).sort()).toEqual([201, 201, 201, 201, 429, 429]);
    const refused = mine.find((response) => response.status === 429)!;
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.body.error.message).toContain('still resolving');
    expect(theirs.status).toBe(201);
    // Once those lookups are over, the tenant registers again.
    expect((await one.post('/webhooks', hook(7))).status).toBe(201);
  }, 60_000);
});
