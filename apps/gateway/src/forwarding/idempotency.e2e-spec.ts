import { Client } from 'pg';
import { ApiClient, createKey, expectError, startServices, stopAll, type ServiceProcess, type TestKey } from '@ramp/testing';

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
});
