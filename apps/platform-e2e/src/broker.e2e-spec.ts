import { setTimeout as sleep } from 'timers/promises';
import { connect, type NatsConnection } from 'nats';
import { Pool } from 'pg';
import { rampEvents, WalletCredit } from '@ramp/contracts';
import type { MixedLoad } from '@ramp/load';
import { OPERATOR_USER } from '@ramp/messaging';
import { NatsCluster, startServices, stopAll, type AppName, type ServiceProcess } from '@ramp/testing';
import { expectLoadSettled, loadReceiver, startLoad, type LoadReceiver } from './load-settled.spec-helper';

const NAMESPACE = process.env.EVENTS_NAMESPACE ?? '';
const subject = (name: string) => (NAMESPACE ? `${NAMESPACE}.${name}` : name);
const DEPOSIT_WINDOW_SECONDS = 40;

/**
 * The broker as production runs it: three nats-server processes in a JetStream cluster, the streams at three replicas,
 * and each service connected as its own user with the permissions of deploy/nats/authorization.conf (generated from
 * SERVICE_ACCESS). A service is refused what its permissions leave out; the platform runs a mixed load while one server
 * is killed with `kill -9` and later another is restarted, and loses nothing.
 */
describe('broker - a three-node JetStream cluster with a NATS user per service', () => {
  const cluster = new NatsCluster(3);
  const connections: NatsConnection[] = [];
  const as = async (user: string, password = cluster.passwords[user]) => {
    const nc = await connect({ servers: cluster.url.split(','), user, pass: password, inboxPrefix: `_INBOX.${user}` });
    connections.push(nc);
    return nc;
  };

  beforeAll(async () => {
    await cluster.start(NAMESPACE);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
    await cluster.close();
  });

  it('refuses a service what its permissions leave out: the notifier cannot credit a wallet nor read the ramp events', async () => {
    const notifier = await as('notifier');
    // What the notifier calls goes through (no one serves it here: the server says so, instead of refusing it).
    await expect(notifier.request(subject('gateway.v1.keys.signing-secret'), '{}', { timeout: 2000 })).rejects.toMatchObject({ code: '503' });
    // A ledger credit, serving the ledger's subjects, reading another service's replies: refused by the server.
    await expect(notifier.request(subject(WalletCredit.contract.subject), '{}', { timeout: 2000 })).rejects.toMatchObject({
      code: 'PERMISSIONS_VIOLATION',
      message: expect.stringContaining(`Publish to "${subject(WalletCredit.contract.subject)}"`),
    });
    await expect(refusedSubscription(notifier, subject('ledger.v1.>'))).resolves.toContain('Subscription to');
    await expect(refusedSubscription(notifier, '_INBOX.gateway.>')).resolves.toContain('Subscription to');
    // A durable consumer of the ramp's events, or events published into the ramp's stream.
    const jsm = await notifier.jetstreamManager();
    await expect(jsm.consumers.add(rampEvents(NAMESPACE).stream, { durable_name: 'eavesdropper' })).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
    const gateway = await as('gateway');
    await expect(gateway.jetstream().publish(`${rampEvents(NAMESPACE).subjectPrefix}.onramp.completed`, '{}')).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
    // And a wrong password is no way in.
    await expect(as('ledger', 'not-the-password')).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
  });

  it('runs a mixed load through a kill -9 of one server and a restart of another: nothing lost, nothing applied twice', async () => {
    const to: LoadReceiver = await loadReceiver();
    const env = (app: AppName) => ({
      ...cluster.envFor(app),
      STREAM_REPLICAS: '3',
      SANDBOX_STEP_DELAY_MS: '200',
      SANDBOX_DEPOSIT_WINDOW_SECONDS: String(DEPOSIT_WINDOW_SECONDS),
      JOB_LEASE_MS: '3000',
      WEBHOOK_TIMEOUT_MS: '3000',
      ...to.env,
      // Warnings and errors are kept (ServiceProcess.logs): a refusal by NATS is logged as an error.
      LOG_LEVEL: 'warn',
    });
    let services: Map<AppName, ServiceProcess> | undefined;
    let load: MixedLoad | undefined;
    const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
    try {
      services = await startServices(['quote', 'ledger', 'ramp', 'swap-transfer', 'notifier', 'gateway'], env);
      const started = await startLoad(services.get('gateway')!.url, to, 6);
      load = started.load;
      const faults: [string, () => Promise<void>][] = [
        ['kill -9 NATS server 1', () => cluster.kill(0)],
        ['NATS server 1 back', () => cluster.restart(0)],
        ['restart NATS server 2', async () => {
          await cluster.stop(1);
          await sleep(1000);
          await cluster.restart(1);
        }],
      ];
      for (const [name, inject] of faults) {
        await sleep(3000);
        for (const service of services.values()) if (service.ended) throw new Error(`${service.app} died (${service.ended}):\n${service.logs}`);
        load.phase = name;
        await inject();
      }
      await sleep(3000);
      await load.stop();

      const operator = { NATS_URL: cluster.url, NATS_USER: OPERATOR_USER, NATS_PASSWORD: cluster.passwords[OPERATOR_USER]!, STREAM_REPLICAS: '3' };
      const outcome = await expectLoadSettled({
        pool,
        client: started.client,
        organizationId: started.key.organizationId,
        wallet: started.wallet,
        load,
        receiver: to.receiver,
        settleMs: (DEPOSIT_WINDOW_SECONDS + 80) * 1000,
        nats: { servers: cluster.url, user: OPERATOR_USER, pass: cluster.passwords[OPERATOR_USER]! },
        operatorEnv: operator,
      });
      // The streams the services made are on all three servers; no service was refused anything on the way.
      const jsm = await (await as(OPERATOR_USER)).jetstreamManager();
      const info = await jsm.streams.info(rampEvents(NAMESPACE).stream);
      expect([info.config.num_replicas, (info.cluster?.replicas ?? []).length]).toEqual([3, 2]);
      for (const service of services.values()) {
        expect([service.app, service.logRecords.filter((record) => record.msg === 'NATS refused an operation')]).toEqual([service.app, []]);
      }
      expect(load.refusals).toEqual([]);
      expect([...load.errors.keys()].filter((error) => / 500 /.test(error))).toEqual([]);
      process.stdout.write(
        `broker: ${outcome.logged.length} transactions over a kill -9 and a restart of NATS servers (3 replicas, a user per service), ` +
          `${outcome.published} integration events, ${outcome.distinct} distinct deliveries; client errors: ${[...load.errors].map(([k, n]) => `${k} ×${n}`).join('; ') || 'none'}\n`,
      );
    } catch (error) {
      throw new Error(`${String((error as Error).stack ?? error)}\n${cluster.logs.slice(-6000)}`);
    } finally {
      await load?.stop();
      await pool.end();
      if (services) await stopAll(services.values());
      await to.receiver.stop();
    }
  }, 600_000);
});

/** The server's refusal of a subscription, as the subscription's iterator ends with it. */
async function refusedSubscription(nc: NatsConnection, subject: string): Promise<string> {
  const subscription = nc.subscribe(subject);
  try {
    for await (const _message of subscription) return 'a message arrived';
    return 'closed without an error';
  } catch (error) {
    return String((error as Error).message);
  }
}
