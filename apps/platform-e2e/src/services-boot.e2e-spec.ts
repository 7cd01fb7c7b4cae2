import { startServices, stopAll, type AppName, type ServiceProcess } from '@ramp/testing';

const APPS: AppName[] = ['quote', 'ramp', 'swap-transfer', 'ledger', 'notifier', 'gateway'];

describe('services - every service boots, reports health and stops on SIGTERM', () => {
  let services: Map<AppName, ServiceProcess>;

  beforeAll(async () => {
    services = await startServices(APPS);
  });

  afterAll(async () => {
    if (services) await stopAll(services.values());
  });

  it.each(APPS)('%s answers liveness and readiness with its dependencies checked', async (app) => {
    const service = services.get(app)!;
    const live = await fetch(`${service.url}/health/live`);
    expect(live.status).toBe(200);
    const ready = await fetch(`${service.url}/health/ready`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { status: string; checks: Record<string, string> };
    expect(body.status).toBe('ok');
    expect(body.checks).toMatchObject({ nats: 'ok', postgres: 'ok' });
    if (app === 'gateway') expect(body.checks['redis']).toBe('ok');
  });

  it('stops gracefully within the grace period', async () => {
    const ledger = services.get('ledger')!;
    const started = Date.now();
    await ledger.stop();
    expect(Date.now() - started).toBeLessThan(10_000);
    await expect(fetch(`${ledger.url}/health/live`)).rejects.toThrow();
  });
});
