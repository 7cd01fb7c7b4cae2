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
      await pool.query<{ event: string; outcome: string | null; processed: boolean; body: unknown }>(
        'select event, outcome, processed_at is not null as processed, body from ramp.partner_events where reference = $1',
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
    // No payout has this reference: each is kept, marked unmatched and logged for an operator.
    const rows = await eventually(
      () => rowsOf(ref),
      (found) => found.length === 2 && found.every((row) => row.processed),
    );
    expect(rows.map((row) => [row.event, row.outcome]).sort()).toEqual([
      ['transfer.reversed', 'unmatched'],
      ['transfer.success', 'unmatched'],
    ]);
    expect(rows.find((row) => row.event === 'transfer.success')!.body).toEqual({ event: 'transfer.success', data: transfer(ref) });
    await eventually(
      async () => services.get('ramp')!.logRecords,
      (records) => records.some((record) => record.reference === ref && String(record.msg).includes('names nothing the platform knows')),
    );
    const metrics = await (await fetch(`${services.get('ramp')!.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/ramp_partner_events_total\{[^}]*event="transfer.success"[^}]*outcome="duplicate"[^}]*\} [3-9]/);
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
      (found) => found[0]?.processed === true,
      15_000,
    );
    expect(row.outcome).toBe('unmatched');
  });

  it("accepts events only from the partner's published addresses when they are set", async () => {
    const gateway = await new ServiceProcess('gateway', await freePort(), { PARTNER_WEBHOOK_ALLOWED_IPS: '52.31.139.75,52.49.173.169' }).start();
    try {
      const ref = reference();
      const refused = await paystack.sendEvent(`${gateway.url}/partners/paystack/webhook`, 'transfer.success', transfer(ref));
      expect(refused.status).toBe(403);
      expect(refused.body.error.reason).toBe('IP_NOT_ALLOWED');
      expect(await rowsOf(ref)).toEqual([]);
    } finally {
      await gateway.stop();
    }
  });
});
