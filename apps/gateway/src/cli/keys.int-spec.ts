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

  it('creates a test key and its secret, printed once as JSON on standard output, and the line that exports it on standard error', async () => {
    const org = `Keys Org ${Date.now()}`;
    const result = await keysCommand(['create', '--org', org, '--env', 'test', '--plan', 'growth']);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created.apiKey).toMatch(/^service_test_/);
    // Pasted into a shell, it sets $KEY as the README's examples use it; the secret is on standard output alone.
    expect(result.stderr.split('\n')).toContain(`export KEY=${created.apiKey}`);
    expect(result.stderr).not.toContain(created.apiSecret);
    expect(created.apiSecret).toMatch(/^service_secret_/);
    expect(created.keyId).toMatch(/^key_/);
    expect(created.organizationId).toMatch(/^org_/);
    expect(created).toMatchObject({ plan: 'growth', perMinute: 300, burstPerSecond: 50 });

    // Only a hash of the key is stored, and the secret is sealed, not in plaintext.
    const dump = JSON.stringify((await db.query('select * from gateway.api_keys where id = $1', [created.keyId])).rows);
    expect(dump).not.toContain(created.apiKey);
    expect(dump).not.toContain(created.apiSecret);
    expect(dump).not.toContain(created.apiSecret.slice('service_secret_'.length));

    // A second key joins the organization when named by its id (rotation loses nothing), the name as a check.
    const live = await keysCommand(['create', '--org', org.toUpperCase(), '--org-id', created.organizationId, '--env', 'live']);
    const second = JSON.parse(live.stdout);
    expect(second.organizationId).toBe(created.organizationId);
    expect(second.apiKey).toMatch(/^service_live_/);
    // A live key is printed once, on standard output: no log of standard error holds it.
    expect(live.stderr).not.toContain(second.apiKey);
  });

  it('refuses a name already taken, in any case, unless --org-id names that organization', async () => {
    const org = `Taken ${Date.now()}`;
    const first = JSON.parse((await keysCommand(['create', '--org', org, '--env', 'test'])).stdout);
    for (const name of [org, org.toLowerCase(), ` ${org.toUpperCase()} `]) {
      const refused = await keysCommand(['create', '--org', name, '--env', 'test']);
      expect({ name, code: refused.code, stdout: refused.stdout }).toEqual({ name, code: 1, stdout: '' });
      expect(refused.stderr).toContain(`an organization named "${org}" already exists (${first.organizationId})`);
      expect(refused.stderr).toContain(`--org-id ${first.organizationId}`);
      expect(refused.stderr).not.toMatch(/[{}]/);
    }

    // --org-id must name an organization that exists and bears that name.
    const otherName = await keysCommand(['create', '--org', `Not ${org}`, '--org-id', first.organizationId, '--env', 'test']);
    expect([otherName.code, otherName.stdout, otherName.stderr.trim()]).toEqual([
      1,
      '',
      `keys: organization ${first.organizationId} is named "${org}", not "Not ${org}"`,
    ]);
    const missing = await keysCommand(['create', '--org', org, '--org-id', 'org_01JD7X3Q9Z8K4M2N6P5R7S9T1V', '--env', 'test']);
    expect([missing.code, missing.stdout, missing.stderr.trim()]).toEqual([1, '', 'keys: no organization has the id org_01JD7X3Q9Z8K4M2N6P5R7S9T1V']);

    const mine = (JSON.parse((await keysCommand(['list', '--org', first.organizationId])).stdout) as { id: string }[]).map((key) => key.id);
    expect(mine).toEqual([first.keyId]);
  });

  it('gives a new name to exactly one of several operators creating it at once', async () => {
    const org = `Race ${Date.now()}`;
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => keysCommand(['create', '--org', i % 2 ? org : org.toUpperCase(), '--env', 'test'])));
    const created = results.filter((result) => result.code === 0).map((result) => JSON.parse(result.stdout));
    expect(created).toHaveLength(1);
    const refused = results.filter((result) => result.code !== 0);
    expect(refused.every((result) => result.code === 1 && result.stderr.includes(`already exists (${created[0].organizationId})`))).toBe(true);
    const organizations = await db.query('select id from gateway.organizations where lower(name) = lower($1)', [org]);
    expect(organizations.rows).toEqual([{ id: created[0].organizationId }]);
  });

  it('gives an enterprise key custom limits and an allowlist, and refuses custom limits on other plans', async () => {
    const enterprise = await keysCommand([
      'create',
      '--org',
      `Big ${Date.now()}`,
      '--env',
      'test',
      '--plan',
      'enterprise',
      '--rate-per-minute',
      '12000',
      '--burst',
      '400',
      '--allow-ip',
      '10.0.0.0/8',
      '--allow-ip',
      '2001:db8::/32',
    ]);
    expect(JSON.parse(enterprise.stdout)).toMatchObject({ perMinute: 12000, burstPerSecond: 400, allowedIps: ['10.0.0.0/8', '2001:db8::/32'] });
    const refused = await keysCommand(['create', '--org', 'Small', '--env', 'test', '--plan', 'free', '--burst', '99']);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('enterprise');
  });

  it('prints the usage of every command and option on standard output when asked, or given no command', async () => {
    for (const args of [['--help'], ['-h'], ['help'], [], ['create', '--help'], ['list', '-h']]) {
      const result = await keysCommand(args);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
      for (const word of [
        'create',
        'revoke',
        'list',
        '--org',
        '--org-id',
        '--env',
        '--plan',
        '--rate-per-minute',
        '--burst',
        '--allow-ip',
        'KEY_ID',
        '--help',
      ]) {
        expect(result.stdout).toContain(word);
      }
    }
  });

  it('explains bad usage on standard error with exit code 2, naming what it did not understand', async () => {
    for (const args of [
      ['create', '--env', 'test'],
      ['create', '--org', 'X', '--env', 'prod'],
      ['create', '--org', '--env', 'test'],
      ['create', '--org', 'X', '--env', 'test', '--allow-ip', 'not-an-ip'],
    ]) {
      const result = await keysCommand(args);
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr.length).toBeGreaterThan(0);
    }
    for (const [args, named] of [
      [['frobnicate'], 'unknown command "frobnicate"'],
      [['--frobnicate'], 'unknown option --frobnicate'],
      [['create', '--org', 'X', '--env', 'test', '--colour', 'red'], 'unknown option --colour'],
      [['list', '--plan', 'free'], 'unknown option --plan'],
      [['revoke', 'key_1', '--force'], 'unknown option --force'],
      [['list', 'everything'], 'unexpected argument "everything"'],
    ] as const) {
      const result = await keysCommand([...args]);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(result.stderr).toContain(named);
      expect(result.stderr).toContain('Usage:');
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

  it("lists one organization's keys, named by its id or its name in any case, and refuses one that does not exist", async () => {
    const org = `Listed ${Date.now()}`;
    const first = JSON.parse((await keysCommand(['create', '--org', org, '--env', 'test'])).stdout);
    const second = JSON.parse((await keysCommand(['create', '--org', org, '--org-id', first.organizationId, '--env', 'live', '--plan', 'growth'])).stdout);
    const other = JSON.parse((await keysCommand(['create', '--org', `Other ${org}`, '--env', 'test'])).stdout);

    for (const selector of [first.organizationId, org, org.toLowerCase()]) {
      const result = await keysCommand(['list', '--org', selector]);
      expect(result.code).toBe(0);
      const listed = JSON.parse(result.stdout) as Record<string, unknown>[];
      expect(listed.map((key) => [key['id'], key['organizationId'], key['organizationName'], key['environment']])).toEqual([
        [first.keyId, first.organizationId, org, 'test'],
        [second.keyId, first.organizationId, org, 'live'],
      ]);
      for (const secret of [first.apiKey, first.apiSecret, second.apiKey, second.apiSecret]) expect(result.stdout).not.toContain(secret);
      expect(result.stdout).not.toMatch(/keyHash|secretSealed/);
    }
    const all = JSON.parse((await keysCommand(['list'])).stdout) as Record<string, unknown>[];
    expect(all.map((key) => key['id'])).toEqual(expect.arrayContaining([first.keyId, second.keyId, other.keyId]));

    const unknown = await keysCommand(['list', '--org', `Nobody ${org}`]);
    expect([unknown.code, unknown.stdout, unknown.stderr.trim()]).toEqual([1, '', `keys: no organization has the id or name "Nobody ${org}"`]);
  });
});
