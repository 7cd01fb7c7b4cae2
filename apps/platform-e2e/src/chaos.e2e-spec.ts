import { setTimeout as sleep } from 'timers/promises';
import { connect } from 'nats';
import { Pool } from 'pg';
import { dec } from '@ramp/money';
import { MixedLoad } from '@ramp/load';
import { RampClient } from '@ramp/sdk';
import {
  ApiClient,
  createKey,
  eventually,
  integrationEventsFor,
  ledgerCheck,
  loggedTransactions,
  makeTestCertificates,
  readModelRows,
  rebuildTransactions,
  stack,
  startServices,
  stopAll,
  walletMovements,
  WebhookReceiver,
  type AppName,
  type LoggedTransaction,
} from '@ramp/testing';

/**
 * `npm test` runs one round of faults under a small load; `npm run test:chaos` (CHAOS_PROFILE=full) three rounds under
 * a larger one. The figures are printed either way.
 */
const FULL = process.env.CHAOS_PROFILE === 'full';
const PROFILE = FULL ? { rounds: 3, concurrency: 12, pauseMs: 3000 } : { rounds: 1, concurrency: 6, pauseMs: 1500 };
/** Every service, each killed in turn; the gateway last in a round, so that the others' faults meet a live edge. */
const APPS: AppName[] = ['chain', 'quote', 'ramp', 'swap-transfer', 'ledger', 'notifier', 'gateway'];
const DEPOSIT_WINDOW_SECONDS = 40;

describe('chaos - every service killed in turn, NATS and PostgreSQL restarted, Redis stopped, under a mixed load with webhooks', () => {
  it('ends every transaction, debits no wallet twice, keeps the books and the read model, and delivers every terminal event', async () => {
    const certificates = makeTestCertificates();
    const secrets = new Map<string, string>();
    let apiSecret = '';
    const receiver = new WebhookReceiver(certificates, { secretFor: (path) => (path.startsWith('/callbacks/') ? apiSecret : secrets.get(path)) });
    await receiver.start();
    const env = {
      SANDBOX_STEP_DELAY_MS: '200',
      SANDBOX_DEPOSIT_WINDOW_SECONDS: String(DEPOSIT_WINDOW_SECONDS),
      JOB_LEASE_MS: '3000',
      WEBHOOK_ALLOW_HOSTS: 'localhost',
      WEBHOOK_CA_FILE: certificates.caFile,
      WEBHOOK_TIMEOUT_MS: '3000',
      // Warnings and errors are kept (ServiceProcess.logs) for the failure message of a service that died.
      LOG_LEVEL: 'warn',
    };
    const services = await startServices(['quote', 'ledger', 'ramp', 'swap-transfer', 'notifier', 'gateway'], env);
    const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
    pool.on('error', () => undefined);
    const faults: string[] = [];
    let load: MixedLoad | undefined;
    // PostgreSQL, NATS and Redis are restarted through scripts/stack.sh, which needs them installed here (not, say,
    // in containers). npm test then injects only the service faults and says so; npm run test:chaos insists.
    const infrastructure = await stack('check').then(
      () => true,
      () => false,
    );
    if (!infrastructure && FULL) throw new Error('npm run test:chaos restarts PostgreSQL, NATS and Redis: they must be the ones scripts/stack.sh manages');
    try {
      const key = await createKey({ plan: 'enterprise' });
      apiSecret = key.apiSecret;
      const baseUrl = `${services.get('gateway')!.url}/v1`;
      // An integrator's backend: the SDK, retrying what is safe to retry for as long as a restart takes.
      const client = new RampClient({ apiKey: key.apiKey, baseUrl, timeoutMs: 15_000, retry: { maxAttempts: 12, baseDelayMs: 200, maxDelayMs: 2000 } });
      const hook = await client.webhooks.create({ url: receiver.url('/hooks'), events: ['*'] });
      secrets.set('/hooks', hook.secret);
      const wallet = await client.wallets.create({ chain: 'base', label: 'chaos' });
      for (let i = 0; i < 4; i++) await client.sandbox.fundWallet(wallet.walletId, { tokenSymbol: 'USDC', amount: '50000' });

      load = new MixedLoad({ client, walletId: wallet.walletId, callbackUrl: (path) => receiver.url(path), concurrency: PROFILE.concurrency });
      load.start();
      const api = new ApiClient(baseUrl, key.apiKey);
      for (let round = 1; round <= PROFILE.rounds; round++) {
        // Each fault is followed by a pause: the errors the load meets until the next one are counted under it.
        const fault = (name: string) => {
          faults.push(name);
          load!.phase = name;
        };
        for (const app of APPS) {
          await sleep(PROFILE.pauseMs);
          // A service that died of an earlier fault must not be hidden by this one's restart.
          for (const service of services.values()) if (service.ended) throw new Error(`${service.app} died (${service.ended}):\n${service.logs}`);
          fault(`kill -9 ${app}`);
          await services.get(app)!.kill();
          await sleep(1000);
          await services.get(app)!.start();
        }
        if (!infrastructure) continue;
        await sleep(PROFILE.pauseMs);
        fault('restart NATS');
        await stack('restart', 'nats');
        await sleep(PROFILE.pauseMs);
        fault('restart PostgreSQL (immediate stop)');
        await stack('restart', 'postgres');
        await sleep(PROFILE.pauseMs);
        fault('stop Redis');
        await stack('stop', 'redis');
        // Rate limits fail open: the request is served, with no X-RateLimit headers, there being no count to report.
        const unlimited = await eventually(() => api.get('/transfer/chains'), (response) => response.status === 200, 10_000, 100);
        expect(unlimited.headers.get('x-ratelimit-limit')).toBeNull();
        await sleep(PROFILE.pauseMs);
        await stack('up');
        const limited = await eventually(() => api.get('/transfer/chains'), (response) => response.status === 200 && response.headers.get('x-ratelimit-limit') !== null, 10_000, 100);
        expect(limited.headers.get('x-ratelimit-policy')).toBe('6000;w=60, 500;w=1');
      }
      await sleep(PROFILE.pauseMs);
      await load.stop();

      // Every service is still (or again) ready; one that died says how, with its last warnings.
      for (const service of services.values()) {
        const ready = await fetch(`${service.url}/health/ready`).then((response) => response.status, () => 'not listening');
        if (ready !== 200) throw new Error(`${service.app} is not ready (${ready}; ${service.ended ?? 'still running'}):\n${service.logs}`);
      }

      // Every transaction the logs hold for this organization ends, including any whose initiation answer was lost.
      const logged = await eventually(
        () => loggedTransactions(pool, key.organizationId),
        (all) => all.length > 0 && all.every((t) => t.outcome !== undefined && t.jobs === 0),
        (DEPOSIT_WINDOW_SECONDS + 80) * 1000,
        500,
      );
      const byId = new Map<string, LoggedTransaction>(logged.map((t) => [t.id, t]));
      const ids = [...byId.keys()];
      // The load knew of these; each is in the log, and ends as the sandbox decides when its steps got through.
      for (const started of load.started) {
        const found = byId.get(started.id);
        expect([started.id, found?.type]).toEqual([started.id, started.type]);
        if (started.kind === 'onramp' || started.kind === 'offramp-noncustodial') {
          if (started.funded) expect([started.id, started.kind, found!.outcome]).toEqual([started.id, started.kind, started.expect]);
        } else {
          expect([started.id, started.kind, found!.outcome]).toEqual([started.id, started.kind, started.expect]);
        }
      }
      expect(logged.length).toBeGreaterThanOrEqual(load.started.length);
      expect(logged.length).toBeLessThanOrEqual(load.started.length + load.unknownOutcomes);

      // The owners' views and the read model agree on every one.
      const views = new Map<string, any>();
      for (const t of logged) {
        const view = (await client.transactions.get(t.id).catch(() => undefined)) as any;
        const owned = (await client[t.type].get(t.id)) as any;
        expect([t.id, owned.status]).toEqual([t.id, t.outcome]);
        views.set(t.id, owned);
        if (view?.status !== owned.status) {
          const caughtUp = await eventually(() => client.transactions.get(t.id), (v: any) => v.status === owned.status, 30_000, 200);
          expect(caughtUp).toEqual(owned);
        } else {
          expect(view).toEqual(owned);
        }
      }

      // No flow ran twice: each reference (one per flow the load attempted) names at most one transaction.
      const references = [...views.values()].map((view) => view.reference as string);
      expect(references.filter((reference, i) => references.indexOf(reference) !== i)).toEqual([]);

      // No wallet debited twice: what each transaction did to the wallet is exactly what its outcome says, and nothing is held.
      const movements = await walletMovements(pool, wallet.walletId, ids);
      for (const [id, view] of views) expect([id, movements.get(id) ?? {}]).toEqual([id, expectedMovement(view, wallet)]);
      const held = (await client.wallets.get(wallet.walletId)).balances.filter((balance) => !dec(balance.held).isZero());
      expect(held).toEqual([]);
      expect(await ledgerCheck()).toMatchObject({ ok: true });

      // The read model equals its rebuild from the streams.
      const live = await readModelRows(pool, ids);
      expect(live).toHaveLength(ids.length);
      await rebuildTransactions();
      expect(await readModelRows(pool, ids)).toEqual(live);

      // Exactly one integration event per transaction, and every one delivered, signed, to the webhook and the callback.
      const nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
      const expectedEvents = logged.map((t) => `${t.id} ${t.type}.${t.outcome}`).sort();
      const published = await eventually(
        () => integrationEventsFor(nc, ids),
        (events) => events.length >= expectedEvents.length,
        30_000,
        500,
      ).finally(() => nc.close());
      expect(published.map((event) => `${event.data.transactionId} ${event.event}`).sort()).toEqual(expectedEvents);
      const deliveredTo = (path: (id: string) => string) => (t: LoggedTransaction) =>
        receiver.on(path(t.id)).some((d) => d.signatureValid && d.body?.event === `${t.type}.${t.outcome}` && d.body?.data?.transactionId === t.id);
      const callbackPath = (id: string) => `/callbacks/${String(views.get(id).reference).replace('chaos-', '')}`;
      await eventually(
        async () => {
          // A delivery whose attempts all met a fault (a stalled receiver or notifier) waits minutes for its next one
          // (1, 5, 30 minutes...: the schedule is the webhooks spec's subject): brought forward, as a clock would, so
          // that what is checked here is that it is still there and delivered, not how long the schedule is.
          await pool.query(
            `update notifier.deliveries set next_attempt_at = now() where organization_id = $1 and status = 'pending' and next_attempt_at > now() + interval '20 seconds'`,
            [key.organizationId],
          );
          return logged.filter((t) => !deliveredTo(() => '/hooks')(t) || !deliveredTo(callbackPath)(t)).map((t) => t.id);
        },
        (missing) => missing.length === 0,
        120_000,
        500,
      );
      expect(receiver.received.filter((d) => !d.signatureValid)).toEqual([]);

      const outcomes = countBy(logged, (t) => `${t.type} ${t.outcome}`);
      const terminalDeliveries = receiver.received.filter((d) => d.body?.data?.transactionId && byId.has(d.body.data.transactionId));
      const distinct = new Set(terminalDeliveries.map((d) => `${d.path} ${d.body.data.transactionId} ${d.body.event}`));
      process.stdout.write(
        [
          `chaos (${FULL ? 'full' : 'reduced'}): ${logged.length} transactions (${[...outcomes].map(([k, n]) => `${n} ${k}`).join(', ')}), ${load.attempted} flows attempted, ${load.unknownOutcomes} initiations with no definite answer`,
          `faults injected: ${faults.length} (${faults.join('; ')})${infrastructure ? '' : '; PostgreSQL, NATS and Redis left alone: scripts/stack.sh cannot restart them here'}`,
          `events: ${logged.reduce((sum, t) => sum + t.events, 0)} in the services' logs, ${published.length} integration events published`,
          `deliveries: ${terminalDeliveries.length} received (${distinct.size} distinct webhook and callback deliveries, ${terminalDeliveries.length - distinct.size} duplicates), all signed`,
          `client errors after the SDK's retries, by the fault they followed: ${[...load.errors].map(([k, n]) => `${k} ×${n}`).join('; ') || 'none'}`,
          `lost: 0 transactions, 0 events, 0 deliveries; wallet debits: each once; ledger balanced; read model equal to its rebuild`,
          '',
        ].join('\n'),
      );
      // A fault is an outage (503), never a request refused (4xx) or a bug (500).
      expect(load.refusals).toEqual([]);
      expect([...load.errors.keys()].filter((error) => / 500 /.test(error))).toEqual([]);
    } finally {
      await load?.stop();
      await stack('up');
      await pool.end();
      await stopAll(services.values());
      await receiver.stop();
    }
  }, 600_000);
});

/** What a transaction in its final state must have done to the wallet, by asset: nothing when it failed. */
function expectedMovement(view: any, wallet: { walletId: string; address: string }): Record<string, string> {
  if (view.status !== 'completed' || view.walletId !== wallet.walletId) return {};
  const moves = new Map<string, ReturnType<typeof dec>>();
  const add = (token: string, chain: string, amount: string) => moves.set(`${chain}:${token}`, (moves.get(`${chain}:${token}`) ?? dec(0)).add(amount));
  switch (view.type) {
    case 'onramp':
      add(view.tokenSymbol, view.chain, view.amount);
      break;
    case 'offramp':
      add(view.tokenSymbol, view.chain, `-${view.amount}`);
      break;
    case 'swap':
    case 'transfer':
      add(view.tokenSymbol, view.chain, `-${view.amount}`);
      // Proceeds sent to the wallet itself (no other destination, or its own address) are credited to it.
      if (view.type === 'swap' && (!view.destinationAddress || view.destinationAddress.toLowerCase() === wallet.address.toLowerCase())) {
        add(view.swap.toToken, view.chain, view.swap.toAmount);
      }
      break;
  }
  return Object.fromEntries([...moves].filter(([, amount]) => !amount.isZero()).map(([asset, amount]) => [asset, amount.toFixed()]));
}

function countBy<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}
