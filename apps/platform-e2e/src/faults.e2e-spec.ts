import { Pool } from 'pg';
import { makeNuban } from '@ramp/banking';
import { ApiClient, createKey, freePort, ledgerCheck, readModelRows, rebuildTransactions, ServiceProcess, startServices, stopAll } from '@ramp/testing';

describe('faults - kill -9 the ramp replica whose relay leads, and the ledger, in the middle of 100 off-ramps', () => {
  it('brings every off-ramp to its end, debits each once, keeps the books and the read model right', async () => {
    const env = { SANDBOX_STEP_DELAY_MS: '300', JOB_LEASE_MS: '2000' };
    const services = await startServices(['quote', 'ledger', 'ramp', 'gateway'], env);
    const pool = new Pool({ connectionString: process.env.DATABASE_URL });
    // The backend holding the ramp relay's leader lock (one per database): the first replica's until it dies.
    const relayLeader = async () =>
      (
        await pool.query<{ pid: number }>(
          `select a.pid from pg_locks l join pg_stat_activity a on a.pid = l.pid
            where l.locktype = 'advisory' and l.granted and a.application_name = 'relay-ramp' and a.datname = current_database()`,
        )
      ).rows.map((row) => row.pid);
    const until = async (condition: () => Promise<boolean>) => {
      const deadline = Date.now() + 20_000;
      while (!(await condition())) {
        if (Date.now() > deadline) throw new Error('condition not met in time');
        await new Promise((wait) => setTimeout(wait, 100));
      }
    };
    await until(async () => (await relayLeader()).length === 1);
    const firstLeader = (await relayLeader())[0];
    // A second ramp replica: its relay and workers take over while the first is dead.
    const secondRamp = await new ServiceProcess('ramp', await freePort(), env).start();
    try {
      const api = new ApiClient(`${services.get('gateway')!.url}/v1`, (await createKey({ plan: 'enterprise' })).apiKey);
      const walletId = (await api.post('/wallets', { chain: 'base' })).body.data.walletId;
      await api.post(`/sandbox/wallets/${walletId}/fund`, { tokenSymbol: 'USDC', amount: '10000' });
      const account = makeNuban('058', '012345678');

      const ids: string[] = [];
      const initiate = async () => {
        const quote = (await api.post('/offramp/quote', { amount: '10', tokenSymbol: 'USDC', bankCode: '058', accountNumber: account, chain: 'base' })).body
          .data;
        const started = await api.post('/offramp/initiate', { quoteId: quote.quoteId, walletId });
        expect(started.status).toBe(201);
        ids.push(started.body.data.transactionId);
      };
      for (let batch = 0; batch < 5; batch++) await Promise.all(Array.from({ length: 10 }, initiate));

      // Half are in flight: kill the first ramp replica (with the relay if it leads) and the ledger without warning.
      // Steps that need the ledger fail and are retried; the other replica takes over the dead one's steps.
      const ramp = services.get('ramp')!;
      const ledger = services.get('ledger')!;
      await ramp.kill();
      await ledger.kill();
      // The relay that led died with the first replica; the second replica's relay takes the lead.
      await until(async () => {
        const leader = await relayLeader();
        return leader.length === 1 && leader[0] !== firstLeader;
      });
      await ledger.start();
      // The other half starts while the first replica is still dead, then it comes back.
      for (let batch = 0; batch < 5; batch++) await Promise.all(Array.from({ length: 10 }, initiate));
      await ramp.start();
      expect(ids).toHaveLength(100);

      const deadline = Date.now() + 90_000;
      const statuses = new Map<string, string>();
      while (Date.now() < deadline) {
        for (const id of ids) {
          if (statuses.get(id) === 'completed' || statuses.get(id) === 'failed') continue;
          const response = await api.get(`/offramp/${id}`);
          statuses.set(id, response.body.data.status);
        }
        if ([...statuses.values()].every((status) => status !== 'pending') && statuses.size === 100) break;
        await new Promise((wait) => setTimeout(wait, 250));
      }
      expect([...statuses.values()].filter((status) => status === 'completed')).toHaveLength(100);

      // Each debited once: 100 × 10 USDC left the wallet, nothing is held, the books balance.
      const wallet = (await api.get(`/wallets/${walletId}`)).body.data;
      expect(wallet.balances.find((balance: any) => balance.tokenSymbol === 'USDC')).toMatchObject({ available: '9000', held: '0' });
      const captures = await pool.query(`select count(*)::int as n from ledger.entries where id = any($1)`, [ids.map((id) => `capture:${id}`)]);
      expect(captures.rows[0].n).toBe(100);
      // The ledger was killed: the chain events it held unacknowledged come back after their AckWait (30 s), so the
      // books may take that long to settle. On failure the whole report is shown: which asset, balance or chain was off.
      const books = await ledgerCheck(45_000);
      expect(books.ok ? { ok: true } : books).toEqual({ ok: true });

      // The read model catches up with all 100, and a rebuild from the streams equals it.
      const readDeadline = Date.now() + 60_000;
      for (;;) {
        const listed = await api.get(`/transactions?walletId=${walletId}&status=completed&limit=1`);
        if (listed.body.meta?.total === 100) break;
        if (Date.now() > readDeadline) throw new Error(`read model has ${listed.body.meta?.total} of 100`);
        await new Promise((wait) => setTimeout(wait, 200));
      }
      const snapshot = () => readModelRows(pool, ids);
      const live = await snapshot();
      await rebuildTransactions();
      expect(await snapshot()).toEqual(live);
    } finally {
      await pool.end();
      await stopAll([...services.values(), secondRamp]);
    }
  }, 180_000);
});
