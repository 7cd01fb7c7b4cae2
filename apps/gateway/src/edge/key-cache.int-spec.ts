import { Client } from 'pg';
import { applyMigrations, ensureDatabase, openDatabase, type ServiceDatabase } from '@ramp/database';
import { KEY_CACHE_LEASE_MS, KeyCache, KeyStore, SecretBox, type AuthenticatedKey } from '@ramp/keys';
import { TEST_DATABASE_URL } from '@ramp/testing';
import { GATEWAY_DATABASE } from '../gateway.module';

/** A real KeyStore that counts its database lookups, to tell a cache hit from a miss. */
class CountingStore {
  lookups = 0;
  constructor(private readonly store: KeyStore) {}
  async authenticateHash(hash: string): Promise<AuthenticatedKey | undefined> {
    this.lookups += 1;
    return this.store.authenticateHash(hash);
  }
}

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((wait) => setTimeout(wait, 20));
  }
}

describe('gateway key cache - no query per request, and never a revoked key', () => {
  let database: ServiceDatabase;
  let operatorDatabase: ServiceDatabase;
  let store: KeyStore;
  let operator: KeyStore;
  const caches: KeyCache[] = [];

  const newCache = async (counting: CountingStore, ttlMs = 60_000): Promise<KeyCache> => {
    const cache = new KeyCache(counting, { databaseUrl: TEST_DATABASE_URL, ttlMs, maxEntries: 100 });
    caches.push(cache);
    await cache.start();
    return cache;
  };

  beforeAll(async () => {
    await ensureDatabase(TEST_DATABASE_URL);
    database = await openDatabase({ ...GATEWAY_DATABASE, url: TEST_DATABASE_URL, poolMax: 2 });
    await applyMigrations(database, GATEWAY_DATABASE.schema);
    // The operator's command runs in its own process with its own connections: a second database stands for it.
    operatorDatabase = await openDatabase({ ...GATEWAY_DATABASE, url: TEST_DATABASE_URL, poolMax: 2 });
    const box = new SecretBox('', false);
    store = new KeyStore(database.orm.em, database.pool, box);
    operator = new KeyStore(operatorDatabase.orm.em, operatorDatabase.pool, box);
  });

  afterAll(async () => {
    await Promise.all(caches.map((cache) => cache.stop()));
    await database.close();
    await operatorDatabase.close();
  });

  const issue = () => operator.create({ organizationName: `Cache Org ${Date.now()}`, environment: 'test', plan: 'growth' });

  it('looks a key up once, then answers from memory', async () => {
    const counting = new CountingStore(store);
    const cache = await newCache(counting);
    const key = await issue();
    for (let i = 0; i < 5; i++) expect((await cache.authenticate(key.apiKey))?.tenant.keyId).toBe(key.keyId);
    expect(counting.lookups).toBe(1);
  });

  it("keeps a restricted key's allowlist parsed with it: the same one for every request, answering by its CIDRs", async () => {
    const counting = new CountingStore(store);
    const cache = await newCache(counting);
    const restricted = await operator.create({
      organizationName: `Cache Org restricted ${Date.now()}`,
      environment: 'test',
      plan: 'growth',
      allowedIps: ['10.0.0.0/8', '2001:db8::/32'],
    });
    const first = await cache.authenticate(restricted.apiKey);
    const again = await cache.authenticate(restricted.apiKey);
    expect(again?.allowlist).toBe(first?.allowlist);
    expect(first?.allowlist.allows('10.200.3.4')).toBe(true);
    expect(first?.allowlist.allows('::ffff:10.1.1.1')).toBe(true);
    expect(first?.allowlist.allows('2001:db8::7')).toBe(true);
    expect(first?.allowlist.allows('192.0.2.1')).toBe(false);
    const open = await cache.authenticate((await issue()).apiKey);
    expect(open?.allowlist.allows('192.0.2.1')).toBe(true);
  });

  it('never caches unknown keys, so a key issued later works at once', async () => {
    const counting = new CountingStore(store);
    const cache = await newCache(counting);
    expect(await cache.authenticate('service_test_not-a-key')).toBeUndefined();
    expect(await cache.authenticate('service_test_not-a-key')).toBeUndefined();
    expect(counting.lookups).toBe(2);
  });

  it('refuses a revoked key on every replica on the first request after revoke returns, every time', async () => {
    const replicas = [new CountingStore(store), new CountingStore(store)];
    const cacheA = await newCache(replicas[0]!);
    const cacheB = await newCache(replicas[1]!);
    for (let round = 0; round < 5; round++) {
      const key = await issue();
      expect(await cacheA.authenticate(key.apiKey)).toBeDefined();
      expect(await cacheB.authenticate(key.apiKey)).toBeDefined();
      expect(await cacheA.authenticate(key.apiKey)).toBeDefined();
      await operator.revoke(key.keyId);
      expect(await cacheA.authenticate(key.apiKey)).toBeUndefined();
      expect(await cacheB.authenticate(key.apiKey)).toBeUndefined();
    }
  });

  it('looks every key up while its listener is down, and caches again once it is back', async () => {
    const counting = new CountingStore(store);
    const cache = await newCache(counting);
    const key = await issue();
    await cache.authenticate(key.apiKey);
    await cache.authenticate(key.apiKey);
    expect(counting.lookups).toBe(1);

    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'gateway-key-cache'`);
    } finally {
      await admin.end();
    }
    await until(() => !cache.isListening);
    expect(cache.isUsable).toBe(false);
    const before = counting.lookups;
    await cache.authenticate(key.apiKey);
    await cache.authenticate(key.apiKey);
    expect(counting.lookups).toBe(before + 2);

    await until(() => cache.isUsable);
    const reconnected = counting.lookups;
    await cache.authenticate(key.apiKey);
    await cache.authenticate(key.apiKey);
    expect(counting.lookups).toBe(reconnected + 1);
  });

  it('stops answering from memory when its listener stops answering, before a revocation could be missed', async () => {
    const counting = new CountingStore(store);
    const cache = await newCache(counting);
    const key = await issue();
    await cache.authenticate(key.apiKey);
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    const listeners = await admin.query<{ pid: number }>(`select pid from pg_stat_activity where application_name = 'gateway-key-cache'`);
    const pids = listeners.rows.map((row) => row.pid);
    try {
      // A frozen backend neither delivers notifications nor answers heartbeats: the lease must run out.
      for (const pid of pids) process.kill(pid, 'SIGSTOP');
      await new Promise((wait) => setTimeout(wait, KEY_CACHE_LEASE_MS + 100));
      expect(cache.isListening).toBe(true);
      expect(cache.isUsable).toBe(false);
      const before = counting.lookups;
      expect(await cache.authenticate(key.apiKey)).toBeDefined();
      expect(counting.lookups).toBe(before + 1);
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
      await admin.end();
    }
    await until(() => cache.isUsable);
  });

  it('looks a key up again once its time to live has passed', async () => {
    const counting = new CountingStore(store);
    const cache = await newCache(counting, 200);
    const key = await issue();
    await cache.authenticate(key.apiKey);
    await cache.authenticate(key.apiKey);
    await new Promise((wait) => setTimeout(wait, 300));
    await cache.authenticate(key.apiKey);
    expect(counting.lookups).toBe(2);
  });
});
