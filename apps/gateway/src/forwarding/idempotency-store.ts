import { createHash } from 'crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { Config } from '@ramp/config';
import { AppError, invalidField, type Tenant } from '@ramp/contracts';
import { PG_POOL } from '@ramp/service-kit';

export interface StoredResponse {
  status: number;
  body: unknown;
}

export type Claim = { kind: 'claimed' } | { kind: 'replay'; response: StoredResponse };

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
const WAIT_STEP_MS = 50;
/**
 * How long a claim holds its key before the request's outcome is recorded: a claim whose gateway timed out, failed or
 * died (kill -9, a crash) lapses after this, and a retry with the key then runs the request again (initiations are
 * still protected by their single-use quote). Meanwhile retries answer CONFLICT "still being processed".
 */
export const CLAIM_LEASE_SECONDS = 60;

/**
 * Stored responses of POST requests by Idempotency-Key, per tenant, in PostgreSQL (so a replay survives restarts
 * and is shared by every gateway replica). The first request claims the key with an INSERT for a lease of
 * CLAIM_LEASE_SECONDS; concurrent duplicates wait for its outcome, so the operation runs once.
 */
@Injectable()
export class IdempotencyStore {
  private readonly ttlMs: number;
  private readonly waitMs: number;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(Config) config: Config,
  ) {
    this.ttlMs = config.int('idempotencyTtlHours', 1, 24 * 30) * 3_600_000;
    this.waitMs = config.int('rpcTimeoutMs', 1) + 2000;
  }

  static validateKey(value: string): string {
    if (!KEY_SHAPE.test(value)) throw invalidField('Idempotency-Key', 'must be 1 to 255 printable ASCII characters without spaces');
    return value;
  }

  static fingerprint(method: string, path: string, body: unknown): string {
    return createHash('sha256')
      .update(`${method} ${path}\n${JSON.stringify(body ?? null)}`)
      .digest('hex');
  }

  async claim(tenant: Tenant, key: string, fingerprint: string): Promise<Claim> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const inserted = await this.execute(
        `insert into gateway.idempotency_keys
           (organization_id, environment, idempotency_key, request_hash, state, created_at, expires_at)
         values ($1, $2, $3, $4, 'in_progress', now(), now() + make_interval(secs => ${CLAIM_LEASE_SECONDS}))
         on conflict (organization_id, environment, idempotency_key) do update
           set request_hash = excluded.request_hash, state = 'in_progress', response_status = null, response_body = null,
               created_at = excluded.created_at, expires_at = excluded.expires_at
           where gateway.idempotency_keys.expires_at <= now()
         returning 1 as claimed`,
        [tenant.organizationId, tenant.environment, key, fingerprint],
      );
      if (inserted.length > 0) return { kind: 'claimed' };
      const [existing] = await this.execute(
        `select request_hash, state, response_status, response_body from gateway.idempotency_keys
          where organization_id = $1 and environment = $2 and idempotency_key = $3`,
        [tenant.organizationId, tenant.environment, key],
      );
      if (!existing) continue; // released between our insert and select: claim again
      if (existing['request_hash'] !== fingerprint) {
        throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request; use a new key for a new request');
      }
      if (existing['state'] === 'done') {
        return { kind: 'replay', response: { status: Number(existing['response_status']), body: existing['response_body'] } };
      }
      if (Date.now() > deadline) {
        throw new AppError(
          'IDEMPOTENCY_KEY_IN_PROGRESS',
          'A request with this Idempotency-Key is still being processed, or its outcome is not known yet: look the result up, or retry in a minute',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
    }
  }

  /** Records the response, replayed for the key's whole lifetime (IDEMPOTENCY_TTL_HOURS). */
  async complete(tenant: Tenant, key: string, response: StoredResponse): Promise<void> {
    await this.execute(
      `update gateway.idempotency_keys set state = 'done', response_status = $1, response_body = $2, expires_at = now() + make_interval(secs => $3)
        where organization_id = $4 and environment = $5 and idempotency_key = $6`,
      [response.status, JSON.stringify(response.body), this.ttlMs / 1000, tenant.organizationId, tenant.environment, key],
    );
  }

  /** Forgets a claim whose request never reached a service, so that a retry with the same key runs it. */
  async release(tenant: Tenant, key: string): Promise<void> {
    await this.execute(
      `delete from gateway.idempotency_keys where organization_id = $1 and environment = $2 and idempotency_key = $3 and state = 'in_progress'`,
      [tenant.organizationId, tenant.environment, key],
    );
  }

  /** Forgets every stored response of a tenant's environment (POST /sandbox/reset), but that of `keep`: the reset's own. */
  async forgetAll(tenant: Pick<Tenant, 'organizationId' | 'environment'>, keep?: string): Promise<void> {
    await this.execute(`delete from gateway.idempotency_keys where organization_id = $1 and environment = $2 and idempotency_key <> $3`, [
      tenant.organizationId,
      tenant.environment,
      keep ?? '',
    ]);
  }

  private async execute(sql: string, params: unknown[]): Promise<Record<string, unknown>[]> {
    return (await this.pool.query<Record<string, unknown>>(sql, params)).rows;
  }
}
