import type { EntityManager } from '@mikro-orm/core';
import { newId, type Environment, type Tenant } from '@ramp/contracts';
import { transactionSql, type Sql } from '@ramp/database';
import { generateApiKey, generateApiSecret, hashApiKey, PLAN_LIMITS, type Plan } from './api-key';
import { ApiKeySchema, OrganizationSchema, type ApiKeyRecord, type Organization } from './entities';
import { KEY_CACHE_LEASE_MS, KEY_CHANGES_CHANNEL } from './key-changes';
import { IpAllowlist, parseCidr } from './ip-allowlist';
import type { SecretBox } from './secret-box';

export interface CreateKeyInput {
  /** A new organization's name (unique regardless of case), or, with `organizationId`, the name of that organization. */
  organizationName: string;
  /** Adds the key to this existing organization instead of creating one; its name must be `organizationName`. */
  organizationId?: string;
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
  /** `allowedIps`, parsed once when the key is read (the edge checks every request of the key against it). */
  allowlist: IpAllowlist;
}

interface ActiveKeyRow {
  id: string;
  organization_id: string;
  environment: Environment;
  plan: Plan;
  per_minute: number;
  burst_per_second: number;
  allowed_ips: string[];
  sandbox_generation: number;
}

export type KeySummary = Omit<ApiKeyRecord, 'keyHash' | 'secretSealed'> & { organizationName: string };

/**
 * The name of a new organization is taken (names are unique regardless of case). A key joins an existing organization
 * only when asked to by its id, so that a mistyped or reused name never shares one organization's data with another.
 */
export class OrganizationNameTaken extends Error {
  readonly code = 'ORGANIZATION_NAME_TAKEN';

  constructor(readonly existing: Pick<Organization, 'id' | 'name'>) {
    super(`an organization named "${existing.name}" already exists (${existing.id})`);
  }
}

/**
 * Issues, revokes, lists and recognises API keys. Only a hash of each key is stored; secrets are sealed. Keys and
 * organizations are MikroORM entities; the hot paths (recognising a key) and the statements MikroORM cannot say (a
 * revocation with its NOTIFY, a name claimed by a unique index) are plain SQL on `sql`, the pool MikroORM runs on.
 */
export class KeyStore {
  constructor(
    private readonly em: EntityManager,
    private readonly sql: Sql,
    private readonly secrets: SecretBox,
  ) {}

  async create(input: CreateKeyInput): Promise<CreatedKey> {
    const limits = this.limitsFor(input);
    const organizationName = input.organizationName.trim();
    if (organizationName === '') throw new Error('the organization name must not be empty');
    const allowedIps = (input.allowedIps ?? []).map((entry) => {
      parseCidr(entry);
      return entry.trim();
    });
    const em = this.em.fork();
    return em.transactional(async (tx) => {
      const sql = await transactionSql(tx);
      // Several keys (rotation, live and test) share one organization's data, but only when the operator names it by id.
      const organizationId =
        input.organizationId === undefined
          ? await this.insertOrganization(sql, organizationName)
          : await this.organizationToJoin(sql, input.organizationId, organizationName);
      const apiKey = generateApiKey(input.environment);
      const apiSecret = generateApiSecret();
      const record = tx.create(ApiKeySchema, {
        id: newId('key'),
        organizationId,
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
        organizationId,
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
    const { rows } = await this.sql.query<{ revoked_at: Date }>(
      `with revoked as (
         update ${this.table('api_keys')} set revoked_at = coalesce(revoked_at, now()) where id = $1 returning id, revoked_at
       )
       select revoked_at, pg_notify($2, id) from revoked`,
      [keyId, KEY_CHANGES_CHANNEL],
    );
    const row = rows[0];
    if (!row) return undefined;
    await new Promise((resolve) => setTimeout(resolve, KEY_CACHE_LEASE_MS + 50));
    return { keyId, revokedAt: new Date(row.revoked_at).toISOString() };
  }

  /**
   * Starts a new sandbox generation for an organization's test environment (POST /sandbox/reset): its test keys
   * carry the new generation from then on, and every service scopes test data by it, so the environment starts
   * empty while the event logs keep everything. Announced like a revocation, and like one it resolves a cache lease
   * after its commit: a request sent afterwards carries the new generation on every gateway replica.
   */
  async resetSandbox(organizationId: string): Promise<{ generation: number; resetAt: string }> {
    const { rows } = await this.sql.query<{ sandbox_generation: number; reset_at: Date }>(
      `with bumped as (
         update ${this.table('organizations')} set sandbox_generation = sandbox_generation + 1 where id = $1 returning id, sandbox_generation
       )
       select sandbox_generation, now() as reset_at, pg_notify($2, id) from bumped`,
      [organizationId, KEY_CHANGES_CHANNEL],
    );
    const row = rows[0];
    if (!row) throw new Error(`organization ${organizationId} does not exist`);
    await new Promise((resolve) => setTimeout(resolve, KEY_CACHE_LEASE_MS + 50));
    return { generation: row.sandbox_generation, resetAt: new Date(row.reset_at).toISOString() };
  }

  /** Every key, or only those of one organization, named by its id or its name (regardless of case). */
  async list(filter: { organization?: string } = {}): Promise<KeySummary[]> {
    const em = this.em.fork();
    if (filter.organization !== undefined) {
      const organization = await this.organizationByIdOrName(filter.organization);
      const keys = await em.find(ApiKeySchema, { organizationId: organization.id }, { orderBy: { createdAt: 'asc' } });
      return keys.map((key) => summary(key, organization.name));
    }
    const [keys, organizations] = await Promise.all([em.find(ApiKeySchema, {}, { orderBy: { createdAt: 'asc' } }), em.find(OrganizationSchema, {})]);
    const names = new Map(organizations.map((organization) => [organization.id, organization.name]));
    return keys.map((key) => summary(key, names.get(key.organizationId) ?? ''));
  }

  /** Recognises an active key. Unknown and revoked keys give undefined: both are UNAUTHORIZED. */
  async authenticate(apiKey: string): Promise<AuthenticatedKey | undefined> {
    return this.authenticateHash(hashApiKey(apiKey));
  }

  /** {@link authenticate} by the key's hash, in one indexed query (it runs for every request the cache misses). */
  async authenticateHash(keyHash: string): Promise<AuthenticatedKey | undefined> {
    const { rows } = await this.sql.query<ActiveKeyRow>(
      `select k.id, k.organization_id, k.environment, k.plan, k.per_minute, k.burst_per_second, k.allowed_ips, o.sandbox_generation
         from ${this.table('api_keys')} k join ${this.table('organizations')} o on o.id = k.organization_id
        where k.key_hash = $1 and k.revoked_at is null`,
      [keyHash],
    );
    const row = rows[0];
    if (!row) return undefined;
    const tenant: Tenant = { organizationId: row.organization_id, environment: row.environment, keyId: row.id };
    if (row.environment === 'test' && row.sandbox_generation > 0) tenant.generation = row.sandbox_generation;
    return {
      tenant,
      plan: row.plan,
      perMinute: row.per_minute,
      burstPerSecond: row.burst_per_second,
      allowedIps: row.allowed_ips,
      allowlist: new IpAllowlist(row.allowed_ips),
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

  /**
   * Creates an organization, or refuses with {@link OrganizationNameTaken}. The unique index on lower(name) decides:
   * of two operators creating one name at once, the second insert waits for the first and then does nothing.
   */
  private async insertOrganization(sql: Sql, name: string): Promise<string> {
    const inserted = await sql.query<{ id: string }>(
      `insert into ${this.table('organizations')} (id, name, created_at) values ($1, $2, $3) on conflict ((lower(name))) do nothing returning id`,
      [newId('org'), name, new Date()],
    );
    if (inserted.rows[0]) return inserted.rows[0].id;
    const {
      rows: [existing],
    } = await sql.query<Pick<Organization, 'id' | 'name'>>(`select id, name from ${this.table('organizations')} where lower(name) = lower($1)`, [name]);
    if (!existing) throw new Error(`the organization "${name}" could not be created; try again`);
    throw new OrganizationNameTaken(existing);
  }

  /** The id of the organization a new key joins: it must exist and bear `name` (regardless of case), as a check on the id. */
  private async organizationToJoin(sql: Sql, id: string, name: string): Promise<string> {
    const {
      rows: [organization],
    } = await sql.query<{ id: string; name: string; same: boolean }>(
      `select id, name, lower(name) = lower($1) as same from ${this.table('organizations')} where id = $2`,
      [name, id],
    );
    if (!organization) throw new Error(`no organization has the id ${id}`);
    if (!organization.same) throw new Error(`organization ${id} is named "${organization.name}", not "${name}"`);
    return organization.id;
  }

  private async organizationByIdOrName(idOrName: string): Promise<Pick<Organization, 'id' | 'name'>> {
    const {
      rows: [organization],
    } = await this.sql.query<Pick<Organization, 'id' | 'name'>>(
      `select id, name from ${this.table('organizations')} where id = $1 or lower(name) = lower($2) order by id = $1 desc limit 1`,
      [idOrName, idOrName.trim()],
    );
    if (!organization) throw new Error(`no organization has the id or name "${idOrName}"`);
    return organization;
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

function summary({ keyHash: _hash, secretSealed: _secret, ...key }: ApiKeyRecord, organizationName: string): KeySummary {
  return { ...key, organizationName };
}
