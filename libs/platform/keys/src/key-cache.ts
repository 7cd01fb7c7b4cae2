import { Client } from 'pg';
import { hashApiKey } from './api-key';
import type { AuthenticatedKey, KeyStore } from './key-store';
import { KEY_CACHE_LEASE_MS, KEY_CHANGES_CHANNEL } from './key-changes';

export { KEY_CACHE_LEASE_MS, KEY_CHANGES_CHANNEL } from './key-changes';

export interface KeyCacheOptions {
  databaseUrl: string;
  /** A backstop: an entry is looked up again after this long even if no change was announced. */
  ttlMs: number;
  maxEntries: number;
  onListenerError?: (error: Error) => void;
}

interface Entry {
  key: AuthenticatedKey;
  until: number;
}

/**
 * Recognises API keys for one gateway replica without a database query per request, and without ever serving a key
 * after its revocation has been confirmed to the operator:
 *
 * - The cache holds a LISTEN on {@link KEY_CHANGES_CHANNEL}; a revocation commits with a NOTIFY on it, and every
 *   notification empties the cache (and voids lookups in flight, which may have read the key before the commit).
 * - PostgreSQL hands a listening session its pending notifications before it answers that session's next query. So
 *   once a query sent after the revocation's commit has been answered on the listening connection, the notification
 *   has been processed. The cache sends such a query (a heartbeat) every quarter lease and answers from memory only
 *   while the last answered one was sent less than {@link KEY_CACHE_LEASE_MS} ago.
 * - {@link KeyStore.revoke} returns only a lease after its commit: by then every replica has either processed the
 *   notification or stopped answering from memory. A request sent after `keys revoke` returns is refused everywhere.
 *
 * While the listener is down, slow, or not yet up, every request is looked up in the database, as without a cache.
 * Unknown keys are never cached: a flood of made-up keys cannot fill memory, and a new key works at once.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped on every announced change or lost listener; a lookup that straddles a bump is not cached. */
  private generation = 0;
  private client: Client | undefined;
  private listening = false;
  /** performance.now() at which the last answered heartbeat (or the LISTEN itself) was sent. */
  private confirmedAt = -Infinity;
  private heartbeat: NodeJS.Timeout | undefined;
  private beating = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Pick<KeyStore, 'authenticateHash'>,
    private readonly options: KeyCacheOptions,
  ) {}

  /** Starts listening; resolves once listening or after the first failure (it keeps retrying in the background). */
  async start(): Promise<void> {
    await this.listen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.heartbeat);
    this.forget();
    await this.client?.end().catch(() => undefined);
  }

  get isListening(): boolean {
    return this.listening;
  }

  /** Whether the cache may answer now: listening, with a heartbeat sent less than a lease ago answered. */
  get isUsable(): boolean {
    return this.listening && performance.now() - this.confirmedAt < KEY_CACHE_LEASE_MS;
  }

  /** The key from memory, when the cache may answer for it now (see authenticate); undefined means a lookup is needed. */
  cached(apiKey: string): AuthenticatedKey | undefined {
    const cached = this.entries.get(hashApiKey(apiKey));
    return cached && this.isUsable && cached.until > Date.now() ? cached.key : undefined;
  }

  async authenticate(apiKey: string): Promise<AuthenticatedKey | undefined> {
    const hash = hashApiKey(apiKey);
    const usable = this.isUsable;
    const cached = this.entries.get(hash);
    if (cached && usable && cached.until > Date.now()) return cached.key;
    const generation = this.generation;
    const key = await this.store.authenticateHash(hash);
    if (key && usable && generation === this.generation) {
      this.entries.delete(hash);
      if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(hash, { key, until: Date.now() + this.options.ttlMs });
    } else if (!key) {
      this.entries.delete(hash);
    }
    return key;
  }

  private forget(): void {
    this.generation += 1;
    this.entries.clear();
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.options.databaseUrl, application_name: 'gateway-key-cache' });
    this.client = client;
    const lost = (error?: Error) => {
      if (this.client !== client) return;
      this.listening = false;
      clearInterval(this.heartbeat);
      this.forget();
      this.client = undefined;
      void client.end().catch(() => undefined);
      if (error) this.options.onListenerError?.(error);
      if (!this.stopped) this.retry = setTimeout(() => void this.listen(), 1000);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', () => this.forget());
    try {
      await client.connect();
      const sentAt = performance.now();
      await client.query(`listen ${KEY_CHANGES_CHANNEL}`);
      if (this.client !== client || this.stopped) return;
      // Anything may have changed while nobody listened.
      this.forget();
      this.confirmedAt = sentAt;
      this.listening = true;
      this.heartbeat = setInterval(() => void this.beat(client), KEY_CACHE_LEASE_MS / 4);
      this.heartbeat.unref();
    } catch (error) {
      lost(error as Error);
    }
  }

  private async beat(client: Client): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    const sentAt = performance.now();
    try {
      await client.query('select 1');
      if (this.client === client) this.confirmedAt = Math.max(this.confirmedAt, sentAt);
    } catch {
      // The 'error' or 'end' handler takes the connection down; the lease runs out meanwhile.
    } finally {
      this.beating = false;
    }
  }
}
