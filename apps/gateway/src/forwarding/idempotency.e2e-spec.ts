import { Client } from 'pg';
import { ApiClient, createKey, eventually, expectError, startServices, stopAll, type ServiceProcess, type TestKey } from '@ramp/testing';

describe('idempotency - Idempotency-Key on POST', () => {
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let key: TestKey;
  let db: Client;
  const body = { amount: '25000', tokenSymbol: 'USDC', chain: 'base' };

  beforeAll(async () => {
    services = await startServices(['quote', 'gateway']);
    key = await createKey({ plan: 'enterprise' });
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, key.apiKey);
    db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await db.end();
    await stopAll(services.values());
  });

  const quotesOfOrg = async (): Promise<number> =>
    Number((await db.query('select count(*) from quote.quotes where organization_id = $1', [key.organizationId])).rows[0].count);

  it('replays the stored response for the same key and body, and runs the operation once', async () => {
    const before = await quotesOfOrg();
    const first = await api.post('/onramp/quote', body, { 'idempotency-key': 'replay-1' });
    const second = await api.post('/onramp/quote', body, { 'idempotency-key': 'replay-1' });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await quotesOfOrg()).toBe(before + 1);
  });

  it('refuses the same key with another body', async () => {
    await api.post('/onramp/quote', body, { 'idempotency-key': 'conflict-1' });
    const other = await api.post('/onramp/quote', { ...body, amount: '26000' }, { 'idempotency-key': 'conflict-1' });
    expectError(other, 409, 'CONFLICT');
    expect(other.body.error.message).toContain('Idempotency-Key');
  });

  it('replays errors too', async () => {
    const bad = { ...body, amount: '-1' };
    const first = await api.post('/onramp/quote', bad, { 'idempotency-key': 'error-1' });
    expectError(first, 400, 'INVALID_REQUEST', 'amount');
    const second = await api.post('/onramp/quote', bad, { 'idempotency-key': 'error-1' });
    expectError(second, 400, 'INVALID_REQUEST', 'amount');
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });

  it('runs concurrent duplicates once and gives them all the same answer', async () => {
    const before = await quotesOfOrg();
    const responses = await Promise.all(Array.from({ length: 12 }, () => api.post('/onramp/quote', body, { 'idempotency-key': 'race-1' })));
    const ids = new Set(responses.map((response) => response.body?.data?.quoteId));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(ids.size).toBe(1);
    expect(await quotesOfOrg()).toBe(before + 1);
  });

  it('keeps keys apart per organization', async () => {
    const other = await createKey({ plan: 'enterprise' });
    const mine = await api.post('/onramp/quote', body, { 'idempotency-key': 'shared-name' });
    const theirs = await api.withKey(other.apiKey).post('/onramp/quote', body, { 'idempotency-key': 'shared-name' });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.quoteId).not.toBe(mine.body.data.quoteId);
  });

  it('refuses a malformed key', async () => {
    expectError(await api.post('/onramp/quote', body, { 'idempotency-key': 'has spaces in it' }), 400, 'INVALID_REQUEST', 'Idempotency-Key');
  });

  it("frees a key claimed by a gateway that died mid-request once the claim's lease lapses, not 24 hours later", async () => {
    const gateway = services.get('gateway')!;
    const quote = services.get('quote')!;
    const claimKey = `crash-${Date.now()}`;
    const claimOf = async () =>
      (
        await db.query(`select state, expires_at - now() as left from gateway.idempotency_keys where organization_id = $1 and idempotency_key = $2`, [
          key.organizationId,
          claimKey,
        ])
      ).rows[0];
    // The quote service hangs, so the request sits between its claim and its answer when the gateway is killed.
    process.kill(quote.pid!, 'SIGSTOP');
    try {
      const lost = api.post('/onramp/quote', body, { 'idempotency-key': claimKey }).catch(() => 'no answer');
      await eventually(claimOf, (claim) => claim?.state === 'in_progress', 5000, 20);
      await gateway.kill();
      expect(await lost).toBe('no answer');
    } finally {
      process.kill(quote.pid!, 'SIGCONT');
    }
    await gateway.start();
    const claim = await claimOf();
    expect(claim.state).toBe('in_progress');
    expect(claim.left.hours ?? 0).toBe(0);
    expect(claim.left.minutes ?? 0).toBeLessThanOrEqual(1);
    // Within the lease a retry cannot tell whether the request ran: CONFLICT, not a second run.
    const held = await api.post('/onramp/quote', body, { 'idempotency-key': claimKey });
    expectError(held, 409, 'CONFLICT');
    expect(held.body.error.message).toMatch(/still being processed/);
    // Once it lapses (moved here rather than waited for), the retry runs and its answer is kept for the key's lifetime.
    await db.query(`update gateway.idempotency_keys set expires_at = now() where organization_id = $1 and idempotency_key = $2`, [
      key.organizationId,
      claimKey,
    ]);
    expect((await api.post('/onramp/quote', body, { 'idempotency-key': claimKey })).status).toBe(200);
    expect((await claimOf()).left.hours).toBeGreaterThanOrEqual(23);
  });
});
