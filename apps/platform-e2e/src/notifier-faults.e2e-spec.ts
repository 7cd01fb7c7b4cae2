import { connect, headers as natsHeaders } from 'nats';
import { Pool } from 'pg';
import { INTEGRATION_HEADERS, integrationEvents, type IntegrationEvent } from '@ramp/contracts';
import { ApiClient, createKey, eventually, makeTestCertificates, startServices, stopAll, WebhookReceiver } from '@ramp/testing';

const EVENTS = 250;
const WEBHOOKS = 2;

describe('faults - kill -9 the notifier with 500 deliveries pending', () => {
  it('delivers every one at least once after a restart, and the receiver can deduplicate by transactionId plus event', async () => {
    const certificates = makeTestCertificates();
    const secrets = new Map<string, string>();
    const receiver = new WebhookReceiver(certificates, { secretFor: (path) => secrets.get(path) });
    await receiver.start();
    const env = { WEBHOOK_ALLOW_HOSTS: 'localhost', WEBHOOK_CA_FILE: certificates.caFile, WEBHOOK_CONCURRENCY: '10', WEBHOOK_TIMEOUT_MS: '2000' };
    const services = await startServices(['notifier', 'gateway'], env);
    const pool = new Pool({ connectionString: process.env.DATABASE_URL });
    const nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
    try {
      const key = await createKey();
      const api = new ApiClient(`${services.get('gateway')!.url}/v1`, key.apiKey);
      for (const path of ['/first', '/second'].slice(0, WEBHOOKS)) {
        const created = await api.post('/webhooks', { url: receiver.url(path), events: ['*'] });
        expect(created.status).toBe(201);
        secrets.set(path, created.body.data.secret);
      }

      // What the ramp and swap-transfer services publish: the spec's payload, with the tenant in headers.
      const { subjectPrefix } = integrationEvents(process.env.EVENTS_NAMESPACE ?? 'test');
      const js = nc.jetstream();
      const transactionIds: string[] = [];
      for (let i = 0; i < EVENTS; i++) {
        const eventId = crypto.randomUUID();
        const transactionId = `txn_FAULT${String(i).padStart(21, '0')}`;
        transactionIds.push(transactionId);
        const outcome = i % 5 === 0 ? 'failed' : 'completed';
        const type = (['onramp', 'offramp', 'swap', 'transfer'] as const)[i % 4]!;
        const payload: IntegrationEvent = {
          event: `${type}.${outcome}`,
          timestamp: new Date().toISOString(),
          data: {
            transactionId,
            reference: `fault-${i}`,
            type,
            status: outcome,
            amount: '10',
            tokenSymbol: 'USDC',
            chain: 'base',
            metadata: { eventId },
            ...(outcome === 'failed' ? { errorMessage: 'sandbox failure', failureReason: 'TRANSACTION_FAILED' as const } : {}),
          },
        };
        const h = natsHeaders();
        h.set(INTEGRATION_HEADERS.organizationId, key.organizationId);
        h.set(INTEGRATION_HEADERS.environment, 'test');
        h.set(INTEGRATION_HEADERS.keyId, key.keyId);
        await js.publish(`${subjectPrefix}.${payload.event}`, JSON.stringify(payload), { msgID: eventId, headers: h });
      }

      // Some deliveries have arrived, most are still pending or in flight: no warning, no clean-up.
      await eventually(
        async () => receiver.received.length,
        (count) => count >= 50,
        30_000,
        10,
      );
      const notifier = services.get('notifier')!;
      await notifier.kill();
      const arrivedBeforeKill = receiver.received.length;
      const recorded = await pool.query<{ n: number }>(`select count(*)::int as n from notifier.deliveries where organization_id = $1`, [key.organizationId]);
      const pendingAtKill = await pool.query<{ n: number }>(
        `select count(*)::int as n from notifier.deliveries where organization_id = $1 and status = 'pending'`,
        [key.organizationId],
      );
      const expected = EVENTS * WEBHOOKS;
      // Events the consumer had not yet turned into deliveries are still on the stream, unacknowledged.
      const pending = expected - recorded.rows[0]!.n + pendingAtKill.rows[0]!.n;
      expect(arrivedBeforeKill).toBeLessThan(expected);
      expect(pending).toBeGreaterThan(0);

      await notifier.start();
      const distinct = () =>
        new Set(receiver.received.filter((delivery) => delivery.signatureValid).map((d) => `${d.path} ${d.body.data.transactionId} ${d.body.event}`));
      await eventually(
        async () => distinct().size,
        (size) => size === expected,
        90_000,
        200,
      );

      const all = receiver.received;
      expect(all.every((delivery) => delivery.signatureValid)).toBe(true);
      for (const path of ['/first', '/second']) {
        expect(new Set(receiver.on(path).map((delivery) => delivery.body.data.transactionId))).toEqual(new Set(transactionIds));
      }
      // Each is recorded just after its receiver answered.
      const states = await eventually(
        async () =>
          (await pool.query(`select status, count(*)::int as n from notifier.deliveries where organization_id = $1 group by status`, [key.organizationId]))
            .rows,
        (rows) => rows.length === 1,
      );
      expect(states).toEqual([{ status: 'succeeded', n: expected }]);
      process.stdout.write(
        `notifier kill -9: ${expected} deliveries, ${pending} pending at the kill (${arrivedBeforeKill} had arrived), ${all.length} received after restart in all, ${all.length - expected} duplicates (deduplicated by transactionId + event), 0 lost\n`,
      );
    } finally {
      await nc.close();
      await pool.end();
      await stopAll(services.values());
      await receiver.stop();
    }
  });
});
