import { startServices, stopAll, type AppName, type ServiceProcess } from '@ramp/testing';

const APPS: AppName[] = ['chain', 'quote', 'ramp', 'swap-transfer', 'ledger', 'notifier', 'gateway'];

describe('services - every service boots, reports health and stops on SIGTERM', () => {
  let services: Map<AppName, ServiceProcess>;

  beforeAll(async () => {
    // At info, whatever the run's TEST_LOG_LEVEL: the test reads the stop's log line.
    services = await startServices(APPS, { LOG_LEVEL: 'info' });
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

  it.each(APPS)('%s stops on SIGTERM within the grace period, cleanly (exit code 0), closing its port', async (app) => {
    const service = services.get(app)!;
    const started = Date.now();
    const code = await service.stop();
    // Kubernetes sends SIGKILL 30 s after SIGTERM (terminationGracePeriodSeconds); the services give up after 10 s.
    expect({ app, code, withinGrace: Date.now() - started < 10_000 }).toEqual({ app, code: 0, withinGrace: true });
    expect(service.logRecords.map((record) => record['msg'])).toEqual(expect.arrayContaining([`${app} stopping`]));
    await expect(fetch(`${service.url}/health/live`)).rejects.toThrow();
  });
});
