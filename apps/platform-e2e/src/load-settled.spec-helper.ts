import { connect } from 'nats';
import type { Pool } from 'pg';
import { dec } from '@ramp/money';
import { MixedLoad } from '@ramp/load';
import { RampClient } from '@ramp/sdk';
import {
  createKey,
  eventually,
  makeTestCertificates,
  type TestKey,
  WebhookReceiver,
  integrationEventsFor,
  ledgerCheck,
  loggedTransactions,
  readModelRows,
  rebuildTransactions,
  walletMovements,
  type LoggedTransaction,
} from '@ramp/testing';

/** The HTTPS receiver of a load's webhook and callbacks, and the settings the services need to deliver to it. */
export interface LoadReceiver {
  receiver: WebhookReceiver;
  /** WEBHOOK_ALLOW_HOSTS and WEBHOOK_CA_FILE for the services: localhost allowed, the test CA trusted. */
  env: Record<string, string>;
  /** The webhook's secret by path, and the key's API secret (which signs callbacks), once startLoad has them. */
  secrets: Map<string, string>;
}

export async function loadReceiver(): Promise<LoadReceiver> {
  const certificates = makeTestCertificates();
  const secrets = new Map<string, string>();
  const receiver = new WebhookReceiver(certificates, { secretFor: (path) => secrets.get(path.startsWith('/callbacks/') ? '/callbacks/' : path) });
  await receiver.start();
  return { receiver, secrets, env: { WEBHOOK_ALLOW_HOSTS: 'localhost', WEBHOOK_CA_FILE: certificates.caFile } };
}

/**
 * A MixedLoad started through the gateway at `gatewayUrl` by an integrator on an enterprise plan, with a webhook for
 * every event and a funded wallet on base: the SDK retries what is safe to retry for as long as a restart takes.
 */
export async function startLoad(
  gatewayUrl: string,
  to: LoadReceiver,
  concurrency: number,
): Promise<{ key: TestKey; client: RampClient; wallet: { walletId: string; address: string }; load: MixedLoad }> {
  const key = await createKey({ plan: 'enterprise' });
  to.secrets.set('/callbacks/', key.apiSecret);
  const client = new RampClient({
    apiKey: key.apiKey,
    baseUrl: `${gatewayUrl}/v1`,
    timeoutMs: 15_000,
    retry: { maxAttempts: 12, baseDelayMs: 200, maxDelayMs: 2000 },
  });
  const hook = await client.webhooks.create({ url: to.receiver.url('/hooks'), events: ['*'] });
  to.secrets.set('/hooks', hook.secret);
  const wallet = await client.wallets.create({ chain: 'base', label: 'load' });
  for (let i = 0; i < 4; i++) await client.sandbox.fundWallet(wallet.walletId, { tokenSymbol: 'USDC', amount: '50000' });
  const load = new MixedLoad({ client, walletId: wallet.walletId, callbackUrl: (path) => to.receiver.url(path), concurrency });
  load.start();
  return { key, client, wallet, load };
}

/** A mixed load that has been stopped, with what it ran against, to check that nothing it started was lost or doubled. */
export interface LoadRun {
  pool: Pool;
  client: RampClient;
  organizationId: string;
  wallet: { walletId: string; address: string };
  load: MixedLoad;
  /** The receiver of the load's webhook (at `/hooks`) and of its per-transaction callbacks. */
  receiver: WebhookReceiver;
  /** How long the last transactions may still take to end (a deposit window, the sandbox's steps). */
  settleMs: number;
  /** The broker as the checks reach it, and the environment of the operator's commands (ledger check, rebuild). */
  nats?: { servers: string; user?: string; pass?: string };
  operatorEnv?: Record<string, string>;
}

export interface LoadOutcome {
  logged: LoggedTransaction[];
  published: number;
  /** Terminal deliveries the receiver got for these transactions, and how many of them were distinct. */
  received: number;
  distinct: number;
  /** Non-custodial off-ramps whose deposit was credited after their window closed, and given back. */
  lateDeposits: number;
}

/**
 * After faults under a MixedLoad: every transaction the logs hold ends as the sandbox decided; the owners' views and the
 * read model agree; no flow ran twice and no wallet was debited twice; the books balance; the read model equals its
 * rebuild from the streams; exactly one integration event per transaction was published, and every one was delivered,
 * signed, to the webhook and to the transaction's callback.
 */
export async function expectLoadSettled(run: LoadRun): Promise<LoadOutcome> {
  const { pool, client, load, receiver, wallet } = run;
  // Every transaction the logs hold for this organization ends, including any whose initiation answer was lost.
  const logged = await eventually(
    () => loggedTransactions(pool, run.organizationId),
    (all) => all.length > 0 && all.every((t) => t.outcome !== undefined && t.jobs === 0),
    run.settleMs,
    500,
  );
  const byId = new Map<string, LoggedTransaction>(logged.map((t) => [t.id, t]));
  const ids = [...byId.keys()];
  // The load knew of these; each is in the log.
  for (const started of load.started) expect([started.id, byId.get(started.id)?.type]).toEqual([started.id, started.type]);
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
      const caughtUp = await eventually(
        () => client.transactions.get(t.id),
        (v: any) => v.status === owned.status,
        30_000,
        200,
      );
      expect(caughtUp).toEqual(owned);
    } else {
      expect(view).toEqual(owned);
    }
  }

  // Each ends as the sandbox decides when its steps got through. A non-custodial off-ramp's deposit is a real one on
  // chain: under faults it may be credited after its window closed, and the off-ramp then fails DEPOSIT_EXPIRED with
  // the deposit given back to its sender (its refund's hash), never paid out nor kept.
  let lateDeposits = 0;
  for (const started of load.started) {
    const found = byId.get(started.id)!;
    const view = views.get(started.id);
    if (
      started.kind === 'offramp-noncustodial' &&
      started.funded &&
      started.expect === 'completed' &&
      view.failureReason === 'DEPOSIT_EXPIRED' &&
      view.depositTransactionHash
    ) {
      expect([started.id, found.outcome, view.refundTransactionHash]).toEqual([started.id, 'failed', expect.stringMatching(/^0x[0-9a-f]{64}$/)]);
      // Late indeed: the off-ramp's log has it expire no earlier than its window's end, and only then the deposit.
      const { rows } = await pool.query<{ type: string; at: string }>(
        `select type, data->>'at' as at from ramp.events where stream_id = $1 order by stream_version`,
        [`offramp-${started.id}`],
      );
      const expired = rows.findIndex((row) => row.type === 'offramp.failing');
      const received = rows.findIndex((row) => row.type === 'offramp.deposit_received');
      expect([started.id, expired >= 0 && received > expired, Date.parse(rows[expired]?.at ?? '') >= Date.parse(view.depositExpiresAt)]).toEqual([
        started.id,
        true,
        true,
      ]);
      lateDeposits += 1;
    } else if (started.kind === 'onramp' || started.kind === 'offramp-noncustodial') {
      if (started.funded) expect([started.id, started.kind, found.outcome]).toEqual([started.id, started.kind, started.expect]);
    } else {
      expect([started.id, started.kind, found.outcome]).toEqual([started.id, started.kind, started.expect]);
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
  expect(await ledgerCheck(20_000, run.operatorEnv)).toMatchObject({ ok: true });

  // The read model equals its rebuild from the streams.
  const live = await readModelRows(pool, ids);
  expect(live).toHaveLength(ids.length);
  await rebuildTransactions(run.operatorEnv);
  expect(await readModelRows(pool, ids)).toEqual(live);

  // Exactly one integration event per transaction, and every one delivered, signed, to the webhook and the callback.
  const nc = await connect(run.nats ?? { servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
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
        [run.organizationId],
      );
      return logged.filter((t) => !deliveredTo(() => '/hooks')(t) || !deliveredTo(callbackPath)(t)).map((t) => t.id);
    },
    (missing) => missing.length === 0,
    120_000,
    500,
  );
  expect(receiver.received.filter((d) => !d.signatureValid)).toEqual([]);
  const terminalDeliveries = receiver.received.filter((d) => d.body?.data?.transactionId && byId.has(d.body.data.transactionId));
  const distinct = new Set(terminalDeliveries.map((d) => `${d.path} ${d.body.data.transactionId} ${d.body.event}`));
  return { logged, published: published.length, received: terminalDeliveries.length, distinct: distinct.size, lateDeposits };
}

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
