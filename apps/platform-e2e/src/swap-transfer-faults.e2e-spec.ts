import { connect } from 'nats';
import { Pool } from 'pg';
import { OUTSIDE_ADDRESS } from '@ramp/load';
import { dec } from '@ramp/money';
import { ApiClient, createKey, eventually, integrationEventsFor, ledgerCheck, readModelRows, rebuildTransactions, startServices, stopAll } from '@ramp/testing';

const RECIPIENT = OUTSIDE_ADDRESS;

interface Started {
  id: string;
  type: 'swap' | 'transfer';
  expect: 'completed' | 'failed';
  debit: { token: string; amount: string };
  /** The token a completed one credits back into the wallet (what it delivered: its final view's toAmount). */
  credit?: string;
  /** Its organization's client: the failing ones belong to an organization whose bridge relayer is held. */
  client: ApiClient;
}

describe('faults - kill -9 the swap-transfer service in the middle of 50 swaps and transfers', () => {
  it('brings every one to its end exactly once: completed, or failed with the wallet refunded', async () => {
    const services = await startServices(['quote', 'ledger', 'swap-transfer', 'gateway'], {
      SANDBOX_STEP_DELAY_MS: '300',
      JOB_LEASE_MS: '2000',
      CHAIN_BRIDGE_FILL_SECONDS: '10',
    });
    const pool = new Pool({ connectionString: process.env.DATABASE_URL });
    const nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
    try {
      const api = new ApiClient(`${services.get('gateway')!.url}/v1`, (await createKey({ plan: 'enterprise' })).apiKey);
      const walletId = (await api.post('/wallets', { chain: 'base' })).body.data.walletId;
      await api.post(`/sandbox/wallets/${walletId}/fund`, { tokenSymbol: 'USDC', amount: '10000' });
      await api.post(`/sandbox/wallets/${walletId}/fund`, { tokenSymbol: 'cbBTC', amount: '1' });
      // Another organization, with the sandbox's relayer switch held: its bridge deposits are refunded after their deadline.
      const held = new ApiClient(api.baseUrl, (await createKey({ plan: 'enterprise' })).apiKey);
      const heldWalletId = (await held.post('/wallets', { chain: 'base' })).body.data.walletId;
      await held.post(`/sandbox/wallets/${heldWalletId}/fund`, { tokenSymbol: 'USDC', amount: '1000' });
      expect((await held.post('/sandbox/relayer', { paused: true })).status).toBe(200);
      const clientOf = (outcome: Started['expect']) => (outcome === 'completed' ? { client: api, wallet: walletId } : { client: held, wallet: heldWalletId });

      const started: Started[] = [];
      const swap = async (fromToken: string, toToken: string, amount: string, toChain: string, outcome: Started['expect']) => {
        const { client, wallet } = clientOf(outcome);
        const quote = (await client.post('/swap/quote', { fromToken, toToken, amount, fromChain: 'base', toChain })).body.data;
        const response = await client.post('/swap/initiate', {
          quoteId: quote.quoteId,
          walletId: wallet,
          ...(toChain === 'base' ? {} : { destinationAddress: RECIPIENT }),
        });
        expect(response.status).toBe(201);
        const credit = toChain === 'base' ? toToken : undefined;
        started.push({ id: response.body.data.id, type: 'swap', expect: outcome, debit: { token: fromToken, amount }, credit, client });
      };
      const transfer = async (amount: string, outcome: Started['expect']) => {
        const { client, wallet } = clientOf(outcome);
        const quote = (await client.post('/transfer/quote', { fromChain: 'base', toChain: 'arbitrum', token: 'USDC', amount, destinationAddress: RECIPIENT }))
          .body.data;
        const response = await client.post('/transfer/initiate', { quoteId: quote.quoteId, walletId: wallet });
        expect(response.status).toBe(201);
        started.push({ id: response.body.data.id, type: 'transfer', expect: outcome, debit: { token: 'USDC', amount }, client });
      };
      const batch = [
        ...Array.from({ length: 20 }, () => () => swap('USDC', 'ETH', '10', 'base', 'completed')),
        // Three legs each, all on chain: swap to USDC on base's pools, the intent bridge to bsc, swap to BNB there.
        ...Array.from({ length: 10 }, () => () => swap('cbBTC', 'BNB', '0.001', 'bsc', 'completed')),
        ...Array.from({ length: 10 }, () => () => transfer('10', 'completed')),
        // The held organization's: their bridge deposits (to arbitrum; to bsc before the swap there) are refunded.
        ...Array.from({ length: 5 }, () => () => transfer('20', 'failed')),
        ...Array.from({ length: 5 }, () => () => swap('USDC', 'BNB', '12', 'bsc', 'failed')),
      ];
      for (let i = 0; i < batch.length; i += 10) await Promise.all(batch.slice(i, i + 10).map((start) => start()));
      expect(started).toHaveLength(50);

      // Mid-route: some legs have run, others are due. No warning, no clean-up.
      const streams = started.map((entry) => `${entry.type}-${entry.id}`);
      await eventually(
        async () =>
          (
            await pool.query<{ n: number }>(`select count(*)::int as n from swap_transfer.events where type like '%.leg_completed' and stream_id = any($1)`, [
              streams,
            ])
          ).rows[0]!.n,
        (n) => n > 0,
        30_000,
        10,
      );
      const service = services.get('swap-transfer')!;
      await service.kill();
      const view = async (entry: Started) => (await entry.client.get(`/transactions/${entry.id}`)).body.data;
      const legsRunAtKill = await pool.query<{ n: number }>(
        `select count(*)::int as n from swap_transfer.events where type like '%.leg_completed' and stream_id = any($1)`,
        [started.map((entry) => `${entry.type}-${entry.id}`)],
      );
      const pendingAtKill = (
        await pool.query<{ n: number }>(`select count(*)::int as n from swap_transfer.jobs where stream_id = any($1)`, [
          started.map((entry) => `${entry.type}-${entry.id}`),
        ])
      ).rows[0]!.n;
      expect(legsRunAtKill.rows[0]!.n).toBeGreaterThan(0);
      expect(pendingAtKill).toBeGreaterThan(0);
      await new Promise((wait) => setTimeout(wait, 1000));
      await service.start();

      const finals = new Map<string, any>();
      const deadline = Date.now() + 90_000;
      while (finals.size < started.length && Date.now() < deadline) {
        for (const entry of started) {
          if (finals.has(entry.id)) continue;
          const response = await entry.client.get(`/${entry.type}/${entry.id}`);
          if (response.body.data.status !== 'pending') finals.set(entry.id, response.body.data);
        }
        await new Promise((wait) => setTimeout(wait, 250));
      }
      for (const entry of started) expect([entry.id, finals.get(entry.id)?.status]).toEqual([entry.id, entry.expect]);

      // Each debited once (captured) or refunded once (released); nothing held; the balances add up exactly.
      const entries = await pool.query<{ id: string }>(`select id from ledger.entries where id = any($1)`, [
        started.flatMap((entry) => [`capture:${entry.id}`, `release:${entry.id}`, `hold:${entry.id}`]),
      ]);
      const ids = new Set(entries.rows.map((row) => row.id));
      for (const entry of started) {
        expect(ids.has(`hold:${entry.id}`)).toBe(true);
        expect([ids.has(`capture:${entry.id}`), ids.has(`release:${entry.id}`)]).toEqual(entry.expect === 'completed' ? [true, false] : [false, true]);
      }
      const expected = new Map<string, ReturnType<typeof dec>>([
        ['USDC', dec('10000')],
        ['cbBTC', dec('1')],
        ['ETH', dec(0)],
      ]);
      for (const entry of started.filter((e) => e.expect === 'completed')) {
        expected.set(entry.debit.token, expected.get(entry.debit.token)!.sub(entry.debit.amount));
        // Same-chain swaps run on the pools, each after the others moved them: what each delivered is its own.
        if (entry.credit) expected.set(entry.credit, expected.get(entry.credit)!.add(finals.get(entry.id)!.swap.toAmount));
      }
      const balances = (await api.get(`/wallets/${walletId}`)).body.data.balances;
      for (const [token, amount] of expected) {
        expect(balances.find((balance: any) => balance.tokenSymbol === token)).toEqual({ tokenSymbol: token, available: amount.toFixed(), held: '0' });
      }
      // The held organization's wallet has everything back.
      const heldBalances = (await held.get(`/wallets/${heldWalletId}`)).body.data.balances;
      expect(heldBalances.filter((balance: any) => balance.available !== '0' || balance.held !== '0')).toEqual([
        { tokenSymbol: 'USDC', available: '1000', held: '0' },
      ]);
      // On failure the whole report is shown: which asset, balance or chain was off.
      const books = await ledgerCheck();
      expect(books.ok ? { ok: true } : books).toEqual({ ok: true });

      // Each terminal event published once, and the read model equal to a rebuild from the streams.
      const published = await eventually(
        () =>
          integrationEventsFor(
            nc,
            started.map((entry) => entry.id),
          ),
        (events) => events.length >= 50,
        30_000,
        250,
      );
      expect(published.map((event) => `${event.data.transactionId}:${event.event}`).sort()).toEqual(
        started.map((entry) => `${entry.id}:${entry.type}.${entry.expect}`).sort(),
      );
      await eventually(
        () => Promise.all(started.map(view)),
        (views) => views.every((v, i) => v?.status === started[i]!.expect),
        30_000,
        250,
      );
      const snapshot = () =>
        readModelRows(
          pool,
          started.map((entry) => entry.id),
        );
      const live = await snapshot();
      expect(live).toHaveLength(50);
      await rebuildTransactions();
      expect(await snapshot()).toEqual(live);
    } finally {
      await nc.drain();
      await pool.end();
      await stopAll(services.values());
    }
  }, 180_000);
});
