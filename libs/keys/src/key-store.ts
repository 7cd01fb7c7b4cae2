import type { EntityManager } from '@mikro-orm/core';
import { newId, type Environment, type Tenant } from '@ramp/contracts';
import { generateApiKey, generateApiSecret, hashApiKey, PLAN_LIMITS, type Plan } from './api-key';
import { ApiKeySchema, OrganizationSchema, type ApiKeyRecord } from './entities';
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

  /** Revokes a key; the next request with it is refused on every gateway replica (keys are not cached). */
  async revoke(keyId: string): Promise<{ keyId: string; revokedAt: string } | undefined> {
    const em = this.em.fork();
    const record = await em.findOne(ApiKeySchema, { id: keyId });
    if (!record) return undefined;
    if (!record.revokedAt) {
      record.revokedAt = new Date();
      await em.flush();
    }
    return { keyId, revokedAt: record.revokedAt.toISOString() };
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
    const record = await this.em.fork().findOne(ApiKeySchema, { keyHash: hashApiKey(apiKey), revokedAt: null });
    if (!record) return undefined;
    return {
      tenant: { organizationId: record.organizationId, environment: record.environment, keyId: record.id },
      plan: record.plan,
      perMinute: record.perMinute,
      burstPerSecond: record.burstPerSecond,
      allowedIps: record.allowedIps,
    };
  }

  /** The API secret of a key, for signing per-transaction callbacks. */
  async apiSecretOf(keyId: string): Promise<string | undefined> {
    const record = await this.em.fork().findOne(ApiKeySchema, { id: keyId });
    return record ? this.secrets.open(record.secretSealed) : undefined;
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
