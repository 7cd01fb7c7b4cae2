import type { EntityManager } from '@mikro-orm/core';
import { newId, type Environment, type Tenant } from '@ramp/contracts';
import { generateApiKey, generateApiSecret, hashApiKey, PLAN_LIMITS, type Plan } from './api-key';
import { ApiKeySchema, OrganizationSchema, type ApiKeyRecord } from './entities';
import { KEY_CACHE_LEASE_MS, KEY_CHANGES_CHANNEL } from './key-cache';
import { parseCidr } from './ip-allowlist';
import type { SecretBox } from './secret-box';

export interface CreateKeyInput {
  organizationName: string;
  environment: Environment;
  plan: Plan;
  /** Custom limits: required shape for enterprise, refused for other plans. */
  perMinute?: number;
  burstPerSecond?: number;
  allowedIps?: string[];
}

export interface CreatedKey {
  apiKey: string;
  apiSecret: string;
  keyId: string;
  organizationId: string;
  environment: Environment;
  plan: Plan;
  perMinute: number;
  burstPerSecond: number;
  allowedIps: string[];
}

/** What the gateway knows about the caller once its key is recognised. */
export interface AuthenticatedKey {
  tenant: Tenant;
  plan: Plan;
  perMinute: number;
  burstPerSecond: number;
  allowedIps: string[];
}

interface ActiveKeyRow {
  id: string;
  organization_id: string;
  environment: Environment;
  plan: Plan;
  per_minute: number;
  burst_per_second: number;
  allowed_ips: string[];
}

export type KeySummary = Omit<ApiKeyRecord, 'keyHash' | 'secretSealed'> & { organizationName: string };

/** Issues, revokes, lists and recognises API keys. Only a hash of each key is stored; secrets are sealed. */
export class KeyStore {
  constructor(
    private readonly em: EntityManager,
    private readonly secrets: SecretBox,
  ) {}

  async create(input: CreateKeyInput): Promise<CreatedKey> {
    const limits = this.limitsFor(input);
    const allowedIps = (input.allowedIps ?? []).map((entry) => {
      parseCidr(entry);
      return entry.trim();
    });
    const em = this.em.fork();
    return em.transactional(async (tx) => {
      // One organization per name: several keys (rotation, live and test) share its data.
      await tx.upsert(
        OrganizationSchema,
        { id: newId('org'), name: input.organizationName, createdAt: new Date() },
        { onConflictFields: ['name'], onConflictAction: 'ignore' },
      );
      const organization = await tx.findOneOrFail(OrganizationSchema, { name: input.organizationName });
      const apiKey = generateApiKey(input.environment);
      const apiSecret = generateApiSecret();
      const record = tx.create(ApiKeySchema, {
        id: newId('key'),
        organizationId: organization.id,
        environment: input.environment,
        keyHash: hashApiKey(apiKey),
        keyPrefix: apiKey.slice(0, 17),
        secretSealed: this.secrets.seal(apiSecret),
        plan: input.plan,
        perMinute: limits.perMinute,
        burstPerSecond: limits.burstPerSecond,
        allowedIps,
        createdAt: new Date(),
        revokedAt: null,
      });
      tx.persist(record);
      return {
        apiKey,
        apiSecret,
        keyId: record.id,
        organizationId: organization.id,
        environment: input.environment,
        plan: input.plan,
        perMinute: limits.perMinute,
        burstPerSecond: limits.burstPerSecond,
        allowedIps,
      };
    });
  }

  /**
   * Revokes a key and announces it on {@link KEY_CHANGES_CHANNEL} in the same statement (so in the same transaction),
   * then waits one cache lease: when this resolves, every gateway replica refuses the key (see KeyCache). Revoking
   * twice keeps the first time.
   */
  async revoke(keyId: string): Promise<{ keyId: string; revokedAt: string } | undefined> {
    const rows = await this.em.getConnection().execute<{ revoked_at: Date }[]>(
      `with revoked as (
         update ${this.table('api_keys')} set revoked_at = coalesce(revoked_at, now()) where id = ? returning id, revoked_at
       )
       select revoked_at, pg_notify(?, id) from revoked`,
      [keyId, KEY_CHANGES_CHANNEL],
    );
    const row = rows[0];
    if (!row) return undefined;
    await new Promise((resolve) => setTimeout(resolve, KEY_CACHE_LEASE_MS + 50));
    return { keyId, revokedAt: new Date(row.revoked_at).toISOString() };
  }

  async list(): Promise<KeySummary[]> {
    const em = this.em.fork();
    const [keys, organizations] = await Promise.all([
      em.find(ApiKeySchema, {}, { orderBy: { createdAt: 'asc' } }),
      em.find(OrganizationSchema, {}),
    ]);
    const names = new Map(organizations.map((organization) => [organization.id, organization.name]));
    return keys.map(({ keyHash: _hash, secretSealed: _secret, ...rest }) => ({ ...rest, organizationName: names.get(rest.organizationId) ?? '' }));
  }

  /** Recognises an active key. Unknown and revoked keys give undefined: both are UNAUTHORIZED. */
  async authenticate(apiKey: string): Promise<AuthenticatedKey | undefined> {
    return this.authenticateHash(hashApiKey(apiKey));
  }

  /** {@link authenticate} by the key's hash, in one indexed query (it runs for every request the cache misses). */
  async authenticateHash(keyHash: string): Promise<AuthenticatedKey | undefined> {
    const rows = await this.em.getConnection().execute<ActiveKeyRow[]>(
      `select id, organization_id, environment, plan, per_minute, burst_per_second, allowed_ips
         from ${this.table('api_keys')} where key_hash = ? and revoked_at is null`,
      [keyHash],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      tenant: { organizationId: row.organization_id, environment: row.environment, keyId: row.id },
      plan: row.plan,
      perMinute: row.per_minute,
      burstPerSecond: row.burst_per_second,
      allowedIps: row.allowed_ips,
    };
  }

  /**
   * The sealed API secret of a key of `tenant` (revoked or not: it still signs the callbacks of the transactions it
   * started), for the notifier, which opens it with the same SECRETS_ENCRYPTION_KEY. Undefined for another tenant's key.
   */
  async sealedSecretOf(keyId: string, tenant: Pick<Tenant, 'organizationId' | 'environment'>): Promise<string | undefined> {
    const record = await this.em.fork().findOne(ApiKeySchema, { id: keyId, organizationId: tenant.organizationId, environment: tenant.environment });
    return record?.secretSealed;
  }

  /** A table of the keys' schema (the one the ORM was configured with), for the plain SQL of the hot paths. */
  private table(name: string): string {
    const schema = this.em.config.get('schema');
    return schema ? `"${schema}"."${name}"` : `"${name}"`;
  }

  private limitsFor(input: CreateKeyInput): { perMinute: number; burstPerSecond: number } {
    const custom = input.perMinute !== undefined || input.burstPerSecond !== undefined;
    if (input.plan !== 'enterprise') {
      if (custom) throw new Error(`custom limits are for the enterprise plan; the ${input.plan} plan has fixed limits`);
      return PLAN_LIMITS[input.plan];
    }
    const perMinute = input.perMinute ?? PLAN_LIMITS.enterprise.perMinute;
    const burstPerSecond = input.burstPerSecond ?? PLAN_LIMITS.enterprise.burstPerSecond;
    for (const [name, value] of [
      ['rate per minute', perMinute],
      ['burst per second', burstPerSecond],
    ] as const) {
      if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number of at least 1`);
    }
    return { perMinute, burstPerSecond };
  }
}
