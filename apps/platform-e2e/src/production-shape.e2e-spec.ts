import { setTimeout as sleep } from 'timers/promises';
import { connect, type NatsConnection } from 'nats';
import { Pool } from 'pg';
import { rampEvents, WalletCredit } from '@ramp/contracts';
import type { MixedLoad } from '@ramp/load';
import { OPERATOR_USER } from '@ramp/messaging';
import { freePort, NatsCluster, runCompiled, ServiceProcess, startServices, stopAll, TEST_DATABASE_URL, type AppName } from '@ramp/testing';
import { expectLoadSettled, loadReceiver, startLoad, type LoadReceiver } from './load-settled.spec-helper';

const NAMESPACE = process.env.EVENTS_NAMESPACE ?? '';
const subject = (name: string) => (NAMESPACE ? `${NAMESPACE}.${name}` : name);
const DEPOSIT_WINDOW_SECONDS = 40;
const APPS: AppName[] = ['chain', 'quote', 'ramp', 'swap-transfer', 'ledger', 'notifier', 'gateway'];
/** The login role the services connect as here: granted ramp_app, the role the migrations give read and write only. */
const SERVICE_ROLE = 'ramp_service_test';
const serviceDatabaseUrl = (() => {
  const url = new URL(TEST_DATABASE_URL);
  url.username = SERVICE_ROLE;
  url.password = 'service-role-password';
  return url.toString();
})();

/**
 * The platform as production runs it. The broker: three nats-server processes in a JetStream cluster, the streams at
 * three replicas, each service connected as its own user with the permissions of deploy/nats/authorization.conf
 * (generated from SERVICE_ACCESS). The database: the migrations applied once, by the schemas' owner (the migration
 * Job), and the services connected as a role that may only read and write (ramp_app), with MIGRATE_ON_START=false. Each
 * is refused what it may not do; the platform runs a mixed load while one NATS server is killed with `kill -9` and later
 * another is restarted, and loses nothing.
 */
describe('production shape - a three-node JetStream cluster with a NATS user per service, and services that may only read and write the database', () => {
  const cluster = new NatsCluster(3);
  const connections: NatsConnection[] = [];
  const as = async (user: string, password = cluster.passwords[user]) => {
    const nc = await connect({ servers: cluster.url.split(','), user, pass: password, inboxPrefix: `_INBOX.${user}` });
    connections.push(nc);
    return nc;
  };

  beforeAll(async () => {
    // What the migration Job does, as the owner (the test's own user), then the services' login role.
    for (const app of APPS) {
      const migrated = await runCompiled(`dist/apps/${app}/src/main.js`, ['migrate']);
      if (migrated.code !== 0) throw new Error(`${app} migrate failed: ${migrated.stderr}`);
    }
    const owner = new Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
    try {
      await owner.query(`do $$ begin
        if not exists (select from pg_roles where rolname = '${SERVICE_ROLE}') then create role ${SERVICE_ROLE} login password 'service-role-password'; end if;
      end $$`);
      await owner.query(`grant ramp_app to ${SERVICE_ROLE}`);
    } finally {
      await owner.end();
    }
    await cluster.start(NAMESPACE);
  }, 120_000);

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
    await expect(gateway.jetstream().publish(`${rampEvents(NAMESPACE).subjectPrefix}.onramp.completed`, '{}')).rejects.toMatchObject({
      code: 'PERMISSIONS_VIOLATION',
    });
    // And a wrong password is no way in.
    await expect(as('ledger', 'not-the-password')).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
  });

  it("refuses the services' database role what the migration Job's may do: change an event or the journal, create or alter a table", async () => {
    const service = new Pool({ connectionString: serviceDatabaseUrl, max: 1 });
    const refusal = (sql: string) =>
      service.query(sql).then(
        () => 'allowed',
        (error: { code?: string; message: string }) => `${error.code} ${error.message}`,
      );
    try {
      // What it needs: reading, and writing the tables that are not append-only.
      await expect(refusal('select count(*) from ramp.events')).resolves.toBe('allowed');
      await expect(refusal(`update gateway.idempotency_keys set state = state where false`)).resolves.toBe('allowed');
      for (const sql of [
        `update ramp.events set type = type where false`,
        `delete from swap_transfer.events where false`,
        `delete from ledger.postings where false`,
        `insert into quote.mikro_orm_migrations (name) values ('forged')`,
        `create table gateway.intruder (id int)`,
        `alter table ledger.transactions add column intruder int`,
        `drop table notifier.deliveries`,
        `truncate chain.events`,
        // The contracts' pins: appended, never changed (no row is touched: only the missing privilege refuses it).
        `delete from chain.contract_pins where false`,
      ]) {
        expect([sql, await refusal(sql)]).toEqual([sql, expect.stringMatching(/^42501 (permission denied|must be owner)/)]);
      }
    } finally {
      await service.end();
    }
  });

  it('keeps a service that may not migrate from starting while its schema is behind, and says what to run', async () => {
    const owner = new Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
    const latest = (await owner.query<{ name: string }>(`select name from quote.mikro_orm_migrations order by id desc limit 1`)).rows[0]!.name;
    await owner.query(`delete from quote.mikro_orm_migrations where name = $1`, [latest]);
    try {
      const quote = new ServiceProcess('quote', await freePort(), { DATABASE_URL: serviceDatabaseUrl, MIGRATE_ON_START: 'false', ...cluster.envFor('quote') });
      await expect(quote.start()).rejects.toThrow(new RegExp(`migrations not applied yet \\(${latest}\\): run \`main.js migrate\``));
    } finally {
      await owner.query(`insert into quote.mikro_orm_migrations (name, executed_at) values ($1, now())`, [latest]);
      await owner.end();
    }
  });

  it('runs a mixed load through a kill -9 of one server and a restart of another: nothing lost, nothing applied twice', async () => {
    const to: LoadReceiver = await loadReceiver();
    const env = (app: AppName) => ({
      ...cluster.envFor(app),
      DATABASE_URL: serviceDatabaseUrl,
      MIGRATE_ON_START: 'false',
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
    const violationsBefore = cluster.violations();
    let load: MixedLoad | undefined;
    const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
    try {
      services = await startServices(APPS, env);
      const started = await startLoad(services.get('gateway')!.url, to, 6);
      load = started.load;
      const faults: [string, () => Promise<void>][] = [
        ['kill -9 NATS server 1', () => cluster.kill(0)],
        ['NATS server 1 back', () => cluster.restart(0)],
        [
          'restart NATS server 2',
          async () => {
            await cluster.stop(1);
            await sleep(1000);
            await cluster.restart(1);
          },
        ],
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
      // The streams the services made are on all three servers. No service was refused anything on the way but, at most,
      // an answer to a request taken before it reconnected to another server (allow_responses is per server): its caller
      // timed out and retried.
      const jsm = await (await as(OPERATOR_USER)).jetstreamManager();
      const info = await jsm.streams.info(rampEvents(NAMESPACE).stream);
      expect([info.config.num_replicas, (info.cluster?.replicas ?? []).length]).toEqual([3, 2]);
      const refused = cluster.violations(violationsBefore).flat();
      expect(refused.filter((line) => !/^[\d.:]+ - cid:\d+ - "[^"]*" - Publish Violation - User "[\w-]+", Subject "_INBOX\./.test(line))).toEqual([]);
      expect(load.refusals).toEqual([]);
      expect([...load.errors.keys()].filter((error) => / 500 /.test(error))).toEqual([]);
      process.stdout.write(
        `production shape: ${outcome.logged.length} transactions over a kill -9 and a restart of NATS servers (3 replicas, a user per service), ` +
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
