import { EntitySchema } from '@mikro-orm/core';
import type { Environment } from '@ramp/contracts';
import type { Plan } from './api-key';

export interface Organization {
  id: string;
  /** Unique regardless of case (a unique index on lower(name)). */
  name: string;
  createdAt: Date;
}

export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  environment: Environment;
  /** SHA-256 of the key; the key itself is never stored. */
  keyHash: string;
  /** The first characters of the key, to recognise it in listings. */
  keyPrefix: string;
  /** The API secret, sealed with SecretBox (it signs per-transaction callbacks, so it must be recoverable). */
  secretSealed: string;
  plan: Plan;
  perMinute: number;
  burstPerSecond: number;
  allowedIps: string[];
  createdAt: Date;
  revokedAt: Date | null;
}

export const OrganizationSchema = new EntitySchema<Organization>({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: { type: 'string', primary: true },
    name: { type: 'string' },
    createdAt: { type: 'Date', fieldName: 'created_at' },
  },
});

export const ApiKeySchema = new EntitySchema<ApiKeyRecord>({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: { type: 'string', primary: true },
    organizationId: { type: 'string', fieldName: 'organization_id' },
    environment: { type: 'string' },
    keyHash: { type: 'string', fieldName: 'key_hash', unique: true },
    keyPrefix: { type: 'string', fieldName: 'key_prefix' },
    secretSealed: { type: 'string', fieldName: 'secret_sealed' },
    plan: { type: 'string' },
    perMinute: { type: 'integer', fieldName: 'per_minute' },
    burstPerSecond: { type: 'integer', fieldName: 'burst_per_second' },
    allowedIps: { type: 'string[]', fieldName: 'allowed_ips' },
    createdAt: { type: 'Date', fieldName: 'created_at' },
    revokedAt: { type: 'Date', fieldName: 'revoked_at', nullable: true },
  },
});
