import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Config } from '@ramp/config';
import { AppError, HTTP_STATUS_OF, type RequestOf, type RpcContract, type Tenant } from '@ramp/contracts';
import { SecretBox } from '@ramp/keys';
import { RpcClient, ServiceNotReached } from '@ramp/messaging';
import { IdempotencyStore } from './idempotency-store';

/** Retry-After on a 503 that nothing ran for (no service subscribed): the SDK retries a POST only then. */
const NOT_REACHED_RETRY_AFTER_SECONDS = 1;

export interface ForwardOptions {
  /** HTTP status of success (200 reads and quotes, 201 creations). */
  status: number;
  /** The route needs external providers (prices, banks, chains): refused for live keys until real ones are configured. */
  needsProviders: boolean;
  /**
   * Fields of the success `data` that are secrets shown once (a webhook's `secret`): a stored response for
   * Idempotency-Key keeps them sealed (SecretBox), and a replay opens them, so no plaintext secret is at rest.
   */
  sealedFields?: readonly string[];
  /** How long to wait for the service (default RPC_TIMEOUT_MS): longer for what waits on a chain (sandbox funding). */
  timeoutMs?: number;
}

/**
 * Forwards an authenticated HTTP request to its service over NATS with the caller's tenant and request id, and wraps
 * the answer in the envelope. POST requests honour Idempotency-Key: the same key and body replay the stored response
 * (errors included), another body is CONFLICT, and concurrent duplicates run once.
 */
@Injectable()
export class Forwarder {
  private readonly liveProvidersEnabled: boolean;

  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(IdempotencyStore) private readonly idempotency: IdempotencyStore,
    @Inject(SecretBox) private readonly secrets: SecretBox,
    @Inject(Config) config: Config,
  ) {
    this.liveProvidersEnabled = config.bool('liveProvidersEnabled');
  }

  /** A call without Idempotency-Key: reads, and DELETE (deleting twice finds nothing the second time: NOT_FOUND). */
  async get<C extends RpcContract<unknown, unknown>>(contract: C, request: FastifyRequest, data: RequestOf<C>, options: ForwardOptions) {
    return this.call(contract, this.tenantOf(request, options), request, data);
  }

  /** A list: the service answers `{ data, meta }`, sent as the spec's list envelope `{ success, data, meta }`. */
  async list<C extends RpcContract<unknown, { data: unknown[]; meta: unknown }>>(
    contract: C,
    request: FastifyRequest,
    data: RequestOf<C>,
    options: ForwardOptions,
  ) {
    const tenant = this.tenantOf(request, options);
    const result = (await this.rpc.call(contract, tenant, data, { requestId: request.ctx.requestId })) as { data: unknown[]; meta: unknown };
    return { success: true as const, data: withoutNulls(result.data), meta: result.meta };
  }

  async post<C extends RpcContract<unknown, unknown>>(
    contract: C,
    request: FastifyRequest,
    reply: FastifyReply,
    data: RequestOf<C>,
    options: ForwardOptions,
  ): Promise<void> {
    await this.idempotent(request, reply, options, (tenant) => this.call(contract, tenant, request, data, options.timeoutMs));
  }

  /**
   * Answers a POST with what `run` gives, under the Idempotency-Key rules (see the class); `run` gets the caller's
   * tenant and the request's key, if any. For the gateway's own operations; services' go through {@link post}.
   */
  async idempotent(
    request: FastifyRequest,
    reply: FastifyReply,
    options: ForwardOptions,
    run: (tenant: Tenant, key: string | undefined) => Promise<{ success: true; data: unknown }>,
  ): Promise<void> {
    const tenant = this.tenantOf(request, options);
    const header = request.headers['idempotency-key'];
    const key = typeof header === 'string' && header !== '' ? IdempotencyStore.validateKey(header) : undefined;
    if (!key) {
      await reply.status(options.status).send(await run(tenant, undefined));
      return;
    }

    const claim = await this.idempotency.claim(tenant, key, IdempotencyStore.fingerprint(request.method, request.url, request.body));
    if (claim.kind === 'replay') {
      // Sent here rather than returned: Nest would overwrite a replayed error's status with the route's success status.
      const body = this.mapFields(claim.response.body, options, (value) => this.secrets.open(value));
      await reply.header('Idempotent-Replayed', 'true').status(claim.response.status).send(body);
      return;
    }
    try {
      const body = await run(tenant, key);
      await this.idempotency.complete(tenant, key, { status: options.status, body: this.mapFields(body, options, (value) => this.secrets.seal(value)) });
      await reply.status(options.status).send(body);
    } catch (error) {
      if (error instanceof AppError && HTTP_STATUS_OF[error.code] < 500) {
        await this.idempotency.complete(tenant, key, { status: HTTP_STATUS_OF[error.code], body: { success: false, error: error.toBody() } });
      } else if (error instanceof ServiceNotReached) {
        // No service received it, or the one that did ran nothing: the same key may run it again at once.
        await this.idempotency.release(tenant, key);
        void reply.header('Retry-After', String(NOT_REACHED_RETRY_AFTER_SECONDS));
      }
      // Otherwise (a timeout, an outage, an internal error) the service may have acted: the claim stays until its lease
      // lapses, so that a retry meanwhile hears CONFLICT instead of running the request a second time at once.
      throw error;
    }
  }

  /** `body` with the sealed fields of its `data` passed through `map` (a copy; `body` itself is left alone). */
  private mapFields(body: unknown, options: ForwardOptions, map: (value: string) => string): unknown {
    const data = (body as { data?: Record<string, unknown> } | undefined)?.data;
    if (!options.sealedFields?.length || !data || typeof data !== 'object') return body;
    const copy = { ...data };
    for (const field of options.sealedFields) if (typeof copy[field] === 'string') copy[field] = map(copy[field] as string);
    return { ...(body as object), data: copy };
  }

  private async call<C extends RpcContract<unknown, unknown>>(contract: C, tenant: Tenant, request: FastifyRequest, data: RequestOf<C>, timeoutMs?: number) {
    return { success: true as const, data: withoutNulls(await this.rpc.call(contract, tenant, data, { requestId: request.ctx.requestId, timeoutMs })) };
  }

  private tenantOf(request: FastifyRequest, options: ForwardOptions): Tenant {
    const key = request.ctx.key;
    if (!key) throw new AppError('API_KEY_MISSING', 'The x-api-key header is missing');
    if (options.needsProviders && key.tenant.environment === 'live' && !this.liveProvidersEnabled) {
      throw new AppError('LIVE_MODE_DISABLED', 'Live mode is not enabled for this platform yet: use a test key (service_test_) against the sandbox');
    }
    return key.tenant;
  }
}

/**
 * A service's answer as the API shows it: a field with no value is absent, never null (the spec types optional fields
 * as strings, so a client generated from it would reject null). Services may keep null in their own records.
 */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutNulls) as T;
  if (value === null || typeof value !== 'object') return value;
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) if (field !== null) kept[key] = withoutNulls(field);
  return kept as T;
}
