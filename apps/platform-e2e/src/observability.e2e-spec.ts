import { randomUUID } from 'crypto';
import { Pool } from 'pg';
import { makeNuban } from '@ramp/banking';
import { OfframpInitiate, QuotePeek } from '@ramp/contracts';
import {
  ApiClient,
  createKey,
  eventually,
  freePort,
  makeTestCertificates,
  startServices,
  stopAll,
  WebhookReceiver,
  type AppName,
  type ServiceProcess,
} from '@ramp/testing';

const APPS: AppName[] = ['chain', 'quote', 'ledger', 'ramp', 'swap-transfer', 'notifier', 'gateway'];

/** The value of one series of a Prometheus text exposition (undefined when absent); labels not given are ignored. */
function series(exposition: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of exposition.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) return Number(match[3]);
  }
  return undefined;
}

async function scrape(service: ServiceProcess): Promise<string> {
  const response = await fetch(`${service.opsUrl}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

describe('observability - request ids in every log line across NATS, and Prometheus metrics on every service', () => {
  const certificates = makeTestCertificates();
  const receiver = new WebhookReceiver(certificates, { secretFor: () => secret, statusFor: (path) => (path === '/down' ? 503 : 200) });
  let secret = '';
  let services: Map<AppName, ServiceProcess>;
  let api: ApiClient;
  let pool: Pool;
  const requestId = `obs-${randomUUID()}`;
  let transactionId = '';

  beforeAll(async () => {
    await receiver.start();
    // The gateway as the manifests run it: probes and metrics on a port of their own (OPS_PORT).
    const opsPort = String(await freePort());
    const env = { WEBHOOK_ALLOW_HOSTS: 'localhost', WEBHOOK_CA_FILE: certificates.caFile, LOG_LEVEL: 'debug' };
    services = await startServices(APPS, (app) => (app === 'gateway' ? { ...env, OPS_PORT: opsPort } : env));
    pool = new Pool({ connectionString: process.env.DATABASE_URL });
    const key = await createKey();
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, key.apiKey);
    const webhook = await api.post('/webhooks', { url: receiver.url('/hooks'), events: ['offramp.completed'] });
    secret = webhook.body.data.secret;
    expect((await api.post('/webhooks', { url: receiver.url('/down'), events: ['offramp.completed'] })).status).toBe(201);

    const account = makeNuban('058', '012345678');
    const quote = await api.post('/offramp/quote', { amount: '10', tokenSymbol: 'USDC', bankCode: '058', accountNumber: account, chain: 'base' });
    const started = await fetch(`${services.get('gateway')!.url}/v1/offramp/initiate`, {
      method: 'POST',
      headers: { 'x-api-key': key.apiKey, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ quoteId: quote.body.data.quoteId, sourceAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', reference: 'observability' }),
    });
    expect(started.status).toBe(201);
    expect(started.headers.get('x-request-id')).toBe(requestId);
    transactionId = ((await started.json()) as { data: { transactionId: string } }).data.transactionId;
    expect((await api.post(`/sandbox/offramp/${transactionId}/deposit`, {})).status).toBe(200);
    await eventually(
      async () => receiver.received.filter((delivery) => delivery.path === '/hooks' && delivery.body.data.transactionId === transactionId),
      (hits) => hits.length > 0,
      60_000,
    );
    await eventually(
      async () => receiver.received.filter((delivery) => delivery.path === '/down'),
      (hits) => hits.length > 0,
      30_000,
    );
  });

  afterAll(async () => {
    await pool?.end();
    if (services) await stopAll(services.values());
    await receiver.stop();
  });

  it('logs every request at the gateway as one JSON line with its request id, route, status, duration and key', () => {
    const line = services.get('gateway')!.logRecords.find((record) => record['requestId'] === requestId && record['msg'] === 'request');
    expect(line).toMatchObject({
      service: 'gateway',
      level: 'info',
      method: 'POST',
      route: '/v1/offramp/initiate',
      status: 201,
      durationMs: expect.any(Number),
      keyId: expect.stringMatching(/./),
    });
  });

  it('carries the request id over NATS into the log lines of the services it reaches, and of the services they call in turn', () => {
    const ramp = services.get('ramp')!.logRecords.filter((record) => record['requestId'] === requestId);
    expect(ramp).toEqual(expect.arrayContaining([expect.objectContaining({ service: 'ramp', subject: OfframpInitiate.contract.subject, outcome: 'ok' })]));
    // ramp asks quote for the quote while serving the request: a second hop, with no code passing the id by hand.
    const quote = services.get('quote')!.logRecords.filter((record) => record['requestId'] === requestId);
    expect(quote).toEqual(expect.arrayContaining([expect.objectContaining({ service: 'quote', subject: QuotePeek.contract.subject })]));
  });

  it('records the request id and the correlation id in the metadata of every event the request causes', async () => {
    const { rows } = await pool.query<{ type: string; metadata: { correlationId: string; requestId?: string } }>(
      `select type, metadata from ramp.events where stream_id like $1 order by stream_version`,
      [`%${transactionId}`],
    );
    expect(rows.length).toBeGreaterThan(2);
    expect(rows.every((row) => row.metadata.correlationId === transactionId)).toBe(true);
    expect(rows[0]!.metadata.requestId).toBe(requestId);
  });

  it("puts the transaction's correlation id on the log lines of the work that follows, in the services that do it", async () => {
    const published = services
      .get('ramp')!
      .logRecords.find((record) => record['msg'] === 'integration event published' && record['correlationId'] === transactionId);
    expect(published).toMatchObject({ event: 'offramp.completed', requestId });
    // Through JetStream: the notifier's consumer records the event's deliveries under the same ids.
    const recorded = services
      .get('notifier')!
      .logRecords.find((record) => record['msg'] === 'deliveries recorded' && record['correlationId'] === transactionId);
    expect(recorded).toMatchObject({ event: 'offramp.completed', requestId, deliveries: 2, eventId: expect.stringMatching(/./) });
  });

  it("serves the gateway's probes and metrics on OPS_PORT only: the API port, the ingress controller's, answers them 404", async () => {
    const gateway = services.get('gateway')!;
    expect(gateway.opsUrl).not.toBe(gateway.url);
    // Percent-encoded too: the router decodes the path before it matches a route.
    for (const path of ['/metrics', '/health/ready', '/health/live', '/%6Detrics', '/health/%72eady']) {
      const onApi = await fetch(`${gateway.url}${path}`);
      expect([path, onApi.status, ((await onApi.json()) as { error?: { reason?: string } }).error?.reason]).toEqual([path, 404, 'ROUTE_NOT_FOUND']);
      if (!path.includes('%')) expect([path, (await fetch(`${gateway.opsUrl}${path}`)).status]).toEqual([path, 200]);
    }
    expect(await (await fetch(`${gateway.opsUrl}/health/ready`)).json()).toMatchObject({ status: 'ok', checks: { postgres: 'ok', nats: 'ok' } });
    // Nothing else is served there: not the API.
    expect((await fetch(`${gateway.opsUrl}/v1/transfer/chains`)).status).toBe(404);
  });

  it('serves Prometheus metrics on every service, labelled with the service, with process figures', async () => {
    for (const app of APPS) {
      const exposition = await scrape(services.get(app)!);
      expect({ app, memory: series(exposition, 'process_resident_memory_bytes', { service: app }) }).toEqual({ app, memory: expect.any(Number) });
      expect({ app, eventLoop: series(exposition, 'nodejs_eventloop_lag_p99_seconds', { service: app }) }).toEqual({ app, eventLoop: expect.any(Number) });
    }
  });

  it('measures HTTP latency at the gateway by route template and status, unknown routes included', async () => {
    expect((await api.get('/no/such/route')).status).toBe(404);
    const gateway = await scrape(services.get('gateway')!);
    expect(
      series(gateway, 'ramp_http_request_duration_seconds_count', { method: 'POST', route: '/v1/offramp/initiate', status: '201' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      series(gateway, 'ramp_http_request_duration_seconds_count', { method: 'POST', route: '/v1/sandbox/offramp/:transactionId/deposit', status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    expect(series(gateway, 'ramp_http_request_duration_seconds_count', { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(series(gateway, 'ramp_rpc_client_duration_seconds_count', { subject: OfframpInitiate.contract.subject, outcome: 'ok' })).toBeGreaterThanOrEqual(1);
  });

  it('measures NATS request latency on the answering side by subject and outcome, error codes included', async () => {
    expect((await api.get('/offramp/txn_00000000000000000000000000')).status).toBe(404);
    const ramp = await scrape(services.get('ramp')!);
    expect(series(ramp, 'ramp_rpc_server_duration_seconds_count', { subject: OfframpInitiate.contract.subject, outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(series(ramp, 'ramp_rpc_server_duration_seconds_count', { outcome: 'NOT_FOUND' })).toBeGreaterThanOrEqual(1);
  });

  it('counts rate-limit rejections by scope', async () => {
    const limited = await createKey({ plan: 'enterprise', extra: ['--rate-per-minute', '2', '--burst', '1'] });
    const client = new ApiClient(`${services.get('gateway')!.url}/v1`, limited.apiKey);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await client.get('/onramp/banks')).status);
    expect(statuses).toContain(429);
    const gateway = await scrape(services.get('gateway')!);
    expect(series(gateway, 'ramp_rate_limit_rejections_total', { scope: 'key' })).toBeGreaterThanOrEqual(statuses.filter((status) => status === 429).length);
  });

  it("reports the relay's leadership and backlog, which drains to zero", async () => {
    await eventually(
      async () => series(await scrape(services.get('ramp')!), 'ramp_relay_unpublished_events', { log: 'ramp' }),
      (value) => value === 0,
      10_000,
    );
    const ramp = await scrape(services.get('ramp')!);
    expect(series(ramp, 'ramp_relay_leader', { log: 'ramp' })).toBe(1);
    expect(series(ramp, 'ramp_relay_lag_seconds', { log: 'ramp' })).toBe(0);
  });

  it("reports every durable consumer's lag and outcomes", async () => {
    const expectations: [AppName, string][] = [
      ['ramp', 'ramp_chain_deposits'],
      ['ledger', 'ledger_transactions'],
      ['notifier', 'notifier_deliveries'],
    ];
    for (const [app, consumer] of expectations) {
      const exposition = await scrape(services.get(app)!);
      expect({ consumer, pending: series(exposition, 'ramp_consumer_pending_messages', { consumer }) }).toEqual({ consumer, pending: expect.any(Number) });
      expect({ consumer, ackPending: series(exposition, 'ramp_consumer_ack_pending_messages', { consumer }) }).toEqual({
        consumer,
        ackPending: expect.any(Number),
      });
      expect({ consumer, handled: (series(exposition, 'ramp_events_consumed_total', { consumer, outcome: 'handled' }) ?? 0) > 0 }).toEqual({
        consumer,
        handled: true,
      });
    }
  });

  it('counts webhook delivery outcomes: each attempt by the answer it got, and each delivery that ended', async () => {
    const notifier = await scrape(services.get('notifier')!);
    expect(series(notifier, 'ramp_webhook_attempts_total', { target: 'webhook', result: '2xx' })).toBeGreaterThanOrEqual(1);
    expect(series(notifier, 'ramp_webhook_attempts_total', { target: 'webhook', result: '5xx' })).toBeGreaterThanOrEqual(1);
    expect(series(notifier, 'ramp_webhook_deliveries_total', { target: 'webhook', outcome: 'succeeded' })).toBeGreaterThanOrEqual(1);
    expect(series(notifier, 'ramp_webhook_attempt_duration_seconds_count', { target: 'webhook' })).toBeGreaterThanOrEqual(2);
    expect(series(notifier, 'ramp_webhook_deliveries_due')).toEqual(expect.any(Number));
  });
});
