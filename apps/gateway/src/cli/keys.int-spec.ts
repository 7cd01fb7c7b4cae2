import { Client } from 'pg';
import { keysCommand } from '@ramp/testing';

describe('keys command - operators issue, list and revoke keys with only PostgreSQL', () => {
  let db: Client;

  beforeAll(async () => {
    db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await db.end();
  });

  it('creates a test key and its secret, printed once as JSON on standard output only', async () => {
    const org = `Keys Org ${Date.now()}`;
    const result = await keysCommand(['create', '--org', org, '--env', 'test', '--plan', 'growth']);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created.apiKey).toMatch(/^service_test_/);
    expect(created.apiSecret).toMatch(/^service_secret_/);
    expect(created.keyId).toMatch(/^key_/);
    expect(created.organizationId).toMatch(/^org_/);
    expect(created).toMatchObject({ plan: 'growth', perMinute: 300, burstPerSecond: 50 });

    // Only a hash of the key is stored, and the secret is sealed, not in plaintext.
    const dump = JSON.stringify((await db.query('select * from gateway.api_keys where id = $1', [created.keyId])).rows);
    expect(dump).not.toContain(created.apiKey);
    expect(dump).not.toContain(created.apiSecret);
    expect(dump).not.toContain(created.apiSecret.slice('service_secret_'.length));

    // A second key of the same organization shares it (rotation loses nothing).
    const second = JSON.parse((await keysCommand(['create', '--org', org, '--env', 'live'])).stdout);
    expect(second.organizationId).toBe(created.organizationId);
    expect(second.apiKey).toMatch(/^service_live_/);
  });

  it('gives an enterprise key custom limits and an allowlist, and refuses custom limits on other plans', async () => {
    const enterprise = await keysCommand(['create', '--org', `Big ${Date.now()}`, '--env', 'test', '--plan', 'enterprise', '--rate-per-minute', '12000', '--burst', '400', '--allow-ip', '10.0.0.0/8', '--allow-ip', '2001:db8::/32']);
    expect(JSON.parse(enterprise.stdout)).toMatchObject({ perMinute: 12000, burstPerSecond: 400, allowedIps: ['10.0.0.0/8', '2001:db8::/32'] });
    const refused = await keysCommand(['create', '--org', 'Small', '--env', 'test', '--plan', 'free', '--burst', '99']);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('enterprise');
  });

  it('explains bad usage on standard error with exit code 2', async () => {
    for (const args of [[], ['create', '--env', 'test'], ['create', '--org', 'X', '--env', 'prod'], ['create', '--org', 'X', '--env', 'test', '--allow-ip', 'not-an-ip'], ['frobnicate']]) {
      const result = await keysCommand(args);
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr.length).toBeGreaterThan(0);
    }
    expect((await keysCommand(['create', '--org', 'X', '--env', 'prod'])).code).toBe(2);
  });

  it('lists keys without keys or secrets, and revokes', async () => {
    const created = JSON.parse((await keysCommand(['create', '--org', `List ${Date.now()}`, '--env', 'test'])).stdout);
    const listed = JSON.parse((await keysCommand(['list'])).stdout) as Record<string, unknown>[];
    const mine = listed.find((key) => key['id'] === created.keyId);
    expect(mine).toMatchObject({ environment: 'test', plan: 'free', revokedAt: null });
    expect(JSON.stringify(listed)).not.toContain(created.apiSecret);
    expect(JSON.stringify(listed)).not.toContain('keyHash');

    const revoked = JSON.parse((await keysCommand(['revoke', created.keyId])).stdout);
    expect(revoked.keyId).toBe(created.keyId);
    expect(Date.parse(revoked.revokedAt)).not.toBeNaN();
    const unknown = await keysCommand(['revoke', 'key_nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no key');
  });
});
