import { Pool } from 'pg';
import { eventually, FlutterwaveEmulator, freePort, PaystackEmulator, ServiceProcess, startServices, stopAll, TEST_DATABASE_URL } from '@ramp/testing';

/**
 * Paystack's events through the gateway's partner route to the ramp service: verified over the raw body, recorded
 * once, answered, processed from the record, and kept when they name nothing the platform knows.
 */
describe("bank partner events - Paystack's webhook, verified and recorded once", () => {
  const secretKey = `sk_live_${Math.random().toString(36).slice(2)}`;
  const paystack = new PaystackEmulator(secretKey);
  const flutterwave = new FlutterwaveEmulator('FLWSECK-events-X', `hash-${Math.random().toString(36).slice(2)}`);
  const pool = new Pool({ connectionString: TEST_DATABASE_URL });
  let services: Map<string, ServiceProcess>;
  let webhook: string;

  const rowsOf = async (reference: string) =>
    (
      await pool.query<{ event: string; outcome: string | null; processed: boolean; attempts: number; body: unknown }>(
        'select event, outcome, processed_at is not null as processed, attempts, body from ramp.partner_events where reference = $1',
        [reference],
      )
    ).rows;
  const reference = () => `off_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
  const transfer = (ref: string) => ({ amount: 1_250_000, currency: 'NGN', reference: ref, status: 'success', transfer_code: 'TRF_emulated', id: 4_015_001 });

  beforeAll(async () => {
    // Logging on (tests run services silent): the unmatched event's log line is part of what is checked.
    services = await startServices(['ramp', 'gateway'], {
      PAYSTACK_SECRET_KEY: secretKey,
      FLUTTERWAVE_WEBHOOK_HASH: flutterwave.webhookHash,
      LOG_LEVEL: 'info',
    });
    webhook = `${services.get('gateway')!.url}/partners/paystack/webhook`;
  });

  afterAll(async () => {
    await stopAll(services?.values() ?? []);
    await pool.end();
  });

  it('refuses an event whose signature is wrong or missing with 401, and records nothing', async () => {
    const ref = reference();
    const forged = await paystack.sendEvent(webhook, 'transfer.success', transfer(ref), { signature: 'ab'.repeat(64) });
    expect(forged.status).toBe(401);
    expect(forged.body.error).toMatchObject({ code: 'UNAUTHORIZED', reason: 'PARTNER_SIGNATURE_INVALID' });
    const unsigned = await paystack.sendEvent(webhook, 'transfer.success', transfer(ref), { signature: null });
    expect(unsigned.status).toBe(401);
    // Signed with another key (a test key, an old key): refused too.
    const otherKey = await new PaystackEmulator('sk_live_other').sendEvent(webhook, 'transfer.success', transfer(ref));
    expect(otherKey.status).toBe(401);
    expect(await rowsOf(ref)).toEqual([]);
  });

  it('records a signed event once however often it is sent, without an API key, and keeps one that names nothing known', async () => {
    const ref = reference();
    const first = await paystack.sendEvent(webhook, 'transfer.success', transfer(ref));
    expect(first).toEqual({ status: 200, body: { success: true, data: { recorded: true } } });
    const again = await Promise.all([1, 2, 3].map(() => paystack.sendEvent(webhook, 'transfer.success', transfer(ref))));
    expect(again.map((answer) => answer.body.data)).toEqual([{ recorded: false }, { recorded: false }, { recorded: false }]);
    // The same reference with another status is another event.
    expect((await paystack.sendEvent(webhook, 'transfer.reversed', { ...transfer(ref), status: 'reversed' })).body.data).toEqual({ recorded: true });
    // A transfer reference the platform never made (no off-ramp's payout): each is kept, open, tried again later.
    const rows = await eventually(
      () => rowsOf(ref),
      (found) => found.length === 2 && found.every((row) => row.outcome === 'unmatched'),
    );
    expect(rows.map((row) => [row.event, row.processed, row.attempts]).sort()).toEqual([
      ['transfer.reversed', false, 1],
      ['transfer.success', false, 1],
    ]);
    expect(rows.find((row) => row.event === 'transfer.success')!.body).toEqual({ event: 'transfer.success', data: transfer(ref) });
    // An event of a kind nothing handles is kept too, looked at again hourly, and logged.
    expect((await paystack.sendEvent(webhook, 'paymentrequest.success', { reference: ref, status: 'success' })).body.data).toEqual({ recorded: true });
    await eventually(
      () => rowsOf(ref),
      (found) => found.some((row) => row.event === 'paymentrequest.success' && row.outcome === 'unhandled' && !row.processed),
    );
    await eventually(
      async () => services.get('ramp')!.logRecords,
      (records) => records.some((record) => record.reference === ref && String(record.msg).includes('nothing handles yet')),
    );
    const metrics = await (await fetch(`${services.get('ramp')!.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/ramp_partner_events_total\{[^}]*event="transfer.success"[^}]*outcome="duplicate"[^}]*\} [3-9]/);
  });

  it('keys an event without a reference or an id by its body, and reports a resend of one key with another body', async () => {
    const url = webhook;
    const marker = reference();
    const kinds = async () =>
      (await pool.query<{ n: string }>("select count(*) as n from ramp.partner_events where body->'data'->>'marker' = $1", [marker])).rows[0]!.n;
    expect((await paystack.sendEvent(url, 'customeridentification.success', { marker, note: 'one' })).body.data).toEqual({ recorded: true });
    expect((await paystack.sendEvent(url, 'customeridentification.success', { marker, note: 'two' })).body.data).toEqual({ recorded: true });
    expect((await paystack.sendEvent(url, 'customeridentification.success', { marker, note: 'one' })).body.data).toEqual({ recorded: false });
    expect(await kinds()).toBe('2');
    const ref = reference();
    await paystack.sendEvent(url, 'transfer.success', transfer(ref));
    expect((await paystack.sendEvent(url, 'transfer.success', { ...transfer(ref), amount: 1 })).body.data).toEqual({ recorded: false });
    const metrics = await (await fetch(`${services.get('ramp')!.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/ramp_partner_events_total\{[^}]*outcome="duplicate_differs"[^}]*\} 1/);
  });

  it("takes Flutterwave's events by their verif-hash, a success and a failure of one reference as two events", async () => {
    const url = `${services.get('gateway')!.url}/partners/flutterwave/webhook`;
    const ref = reference();
    const data = (status: string) => ({ id: 190_001, reference: ref, status, amount: 52000.5, currency: 'NGN' });
    expect((await flutterwave.sendEvent(url, 'transfer.completed', data('SUCCESSFUL'), { signature: 'not-the-hash' })).status).toBe(401);
    expect((await flutterwave.sendEvent(url, 'transfer.completed', data('SUCCESSFUL'), { signature: null })).status).toBe(401);
    expect((await flutterwave.sendEvent(url, 'transfer.completed', data('SUCCESSFUL'))).body.data).toEqual({ recorded: true });
    expect((await flutterwave.sendEvent(url, 'transfer.completed', data('SUCCESSFUL'))).body.data).toEqual({ recorded: false });
    expect((await flutterwave.sendEvent(url, 'transfer.completed', data('FAILED'))).body.data).toEqual({ recorded: true });
    expect(await rowsOf(ref)).toHaveLength(2);
  });

  it('processes what was recorded but not processed (a crash after the answer) at the next pass', async () => {
    const ref = reference();
    // As a replica that crashed after recording leaves it: recorded, not processed.
    await pool.query(`insert into ramp.partner_events (provider, event_key, event, reference, body) values ('paystack', $1, 'transfer.failed', $2, $3)`, [
      `transfer.failed:${ref}`,
      ref,
      JSON.stringify({ event: 'transfer.failed', data: transfer(ref) }),
    ]);
    const [row] = await eventually(
      () => rowsOf(ref),
      (found) => found[0]?.attempts === 1,
      15_000,
    );
    expect(row).toMatchObject({ outcome: 'unmatched', processed: false });
  });

  it("accepts events only from the partner's published addresses when they are set, and within each address's limit", async () => {
    const [fenced, limited] = await Promise.all([
      new ServiceProcess('gateway', await freePort(), { PARTNER_WEBHOOK_ALLOWED_IPS: '52.31.139.75,52.49.173.169' }).start(),
      // Behind a trusted proxy, so that the test speaks from an address of its own (the limit is per address, in Redis).
      new ServiceProcess('gateway', await freePort(), { PARTNER_WEBHOOK_PER_MINUTE: '6', TRUSTED_PROXIES: '127.0.0.1' }).start(),
    ]);
    try {
      const ref = reference();
      const refused = await paystack.sendEvent(`${fenced.url}/partners/paystack/webhook`, 'transfer.success', transfer(ref));
      expect(refused.status).toBe(403);
      expect(refused.body.error.reason).toBe('IP_NOT_ALLOWED');
      // Six a minute, one a second: the second at once is refused before it reaches the ramp service.
      const url = `${limited.url}/partners/paystack/webhook`;
      const headers = { 'x-forwarded-for': `198.51.100.${1 + Math.floor(Math.random() * 250)}`, 'x-forwarded-proto': 'https' };
      expect((await paystack.sendEvent(url, 'transfer.success', transfer(ref), { headers })).status).toBe(200);
      const over = await paystack.sendEvent(url, 'transfer.failed', { ...transfer(ref), status: 'failed' }, { headers });
      expect(over.status).toBe(429);
      expect(over.body.error.reason).toBe('RATE_LIMIT_EXCEEDED');
      expect((await rowsOf(ref)).map((row) => row.event)).toEqual(['transfer.success']);
    } finally {
      await Promise.all([fenced.stop(), limited.stop()]);
    }
  });
});
