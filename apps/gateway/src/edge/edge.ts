import { randomUUID } from 'crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Duplex } from 'stream';
import { AppError, invalidField, type ErrorBody } from '@ramp/contracts';
import type { AuthenticatedKey, IpAllowlist, KeyCache } from '@ramp/keys';
import type { RateLimitDecision, RateLimitPolicy, RedisRateLimiter } from '@ramp/rate-limit';
import type { Logger } from '@ramp/service-kit';
import { ClientResolver, type ClientFacts } from './client-address';
import { sendError } from './error.filter';
import type { GatewayMetrics } from './http-metrics';
import { PROBE_ROUTES, PROBES } from './probes';
import { PARTNER_ROUTES } from '../partners/partner-webhooks';
import { isStorableText, TEXT_RULE } from './json-body';
import { queryParameters } from './validation';

export interface RequestContext {
  requestId: string;
  client: ClientFacts;
  key?: AuthenticatedKey;
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
  }
}

export interface EdgeOptions {
  keys: Pick<KeyCache, 'authenticate' | 'cached'>;
  limiter: RedisRateLimiter;
  resolver: ClientResolver;
  logger: Logger;
  /** Plain HTTP accepted from anywhere (ALLOW_INSECURE_HTTP=true). */
  allowInsecureHttp: boolean;
  /** Plain HTTP accepted from loopback (development). */
  allowLoopbackHttp: boolean;
  anonymousPolicy: RateLimitPolicy;
  /** Per client address: the keys it presents that the cache does not hold, each a database lookup. */
  keyLookupPolicy: RateLimitPolicy;
  metrics: GatewayMetrics;
  /** OPS_PORT is set: probes and metrics are served there, and this port answers them ROUTE_NOT_FOUND. */
  probesElsewhere?: boolean;
  /**
   * The bank partners' event routes: the addresses they are taken from (PARTNER_WEBHOOK_ALLOWED_IPS; empty: any) and
   * each address's limit (PARTNER_WEBHOOK_PER_MINUTE), checked before the body is read.
   */
  partners?: { allowlist: IpAllowlist; policy: RateLimitPolicy };
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const PUBLIC_DOCS = /^\/v1\/(openapi\.json|docs)(\/|\?|$)/;

/**
 * The gateway's edge, in the order it runs for every request (including unknown routes): request id, the HTTPS rule,
 * the API key (a key the cache does not hold is looked up only within the client address's lookup limit), the key's
 * IP allowlist, then the rate limit with its headers: the key's own for a key used from an allowed address, the client
 * address's otherwise (no key, an invalid one, or a key used from outside its allowlist, so that a leaked key's misuse
 * never spends its owner's budget). Probes skip all but the request id; the public API documents need no key; bank
 * partners' events (PARTNER_ROUTES) need HTTPS but no key and no limit.
 */
export function installEdge(fastify: FastifyInstance, options: EdgeOptions): void {
  fastify.decorateRequest('ctx', null as unknown as RequestContext);
  fastify.addHook('onRequest', async (request, reply) => {
    const requestId = acceptRequestId(request.headers['x-request-id']);
    void reply.header('x-request-id', requestId);
    const client = options.resolver.resolve({ remoteAddress: request.socket.remoteAddress ?? '', headers: request.headers });
    request.ctx = { requestId, client };
    if (PROBES.test(request.url) || PROBE_ROUTES.has(request.routeOptions.url ?? '')) {
      // Probes and metrics are for the cluster (kubelet, Prometheus), which connects directly; through the ingress
      // (a trusted proxy), or on this port when they have one of their own (OPS_PORT), they do not exist.
      if (client.viaProxy || options.probesElsewhere)
        throw new AppError('ROUTE_NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} was not found`);
      return;
    }

    // HTTP/1.1 requires Host (Node would answer a bare 400 without it; see createGateway); HTTP/1.0 does not.
    if (!request.headers.host && request.raw.httpVersion !== '1.0') throw invalidField('Host', 'header is required (HTTP/1.1)');
    if (!client.https && !options.allowInsecureHttp && !(options.allowLoopbackHttp && ClientResolver.isLoopback(client.address))) {
      throw new AppError('HTTPS_REQUIRED', 'HTTPS is required; requests over plain HTTP are refused');
    }

    // A bank partner's event: authenticated by its signature (the ramp service checks it), not by an API key; from the
    // partners' addresses when they are configured, and under a generous limit of its own per address (the partner
    // resends what it could not deliver, and a burst of payouts is a burst of events), before its body is read.
    if (PARTNER_ROUTES.test(request.url)) {
      const partners = options.partners;
      if (partners && !partners.allowlist.allows(client.address)) {
        throw new AppError('IP_NOT_ALLOWED', `Partner events are accepted only from the partners' published addresses, not ${client.address}`);
      }
      if (partners) await enforceRateLimit(request, reply, options, { subject: `partner:${client.address}`, policy: partners.policy, scope: 'partner' });
      return;
    }

    const presented = headerValue(request.headers['x-api-key']);
    const key = presented ? await authenticate(request, reply, options, presented) : undefined;
    const allowed = key !== undefined && key.allowlist.allows(client.address);
    if (allowed) await enforceRateLimit(request, reply, options, { subject: `key:${key.tenant.keyId}`, policy: key, scope: 'key' });
    else await enforceRateLimit(request, reply, options, { subject: `ip:${client.address}`, policy: options.anonymousPolicy, scope: 'address' });

    if (PUBLIC_DOCS.test(request.url)) return;
    if (!key) {
      throw presented
        ? new AppError('API_KEY_INVALID', 'The API key is invalid or has been revoked')
        : new AppError('API_KEY_MISSING', 'The x-api-key header is missing');
    }
    if (!allowed) {
      throw new AppError('IP_NOT_ALLOWED', `This API key may not be used from ${client.address}; it is restricted to allowlisted addresses`);
    }
    request.ctx.key = key;
  });
}

/**
 * The presented key: from the cache, or looked up in the database once the client's address has a lookup left
 * (keyLookupPolicy; refused with 429 otherwise), so that a flood of made-up keys is refused before the database.
 */
async function authenticate(request: FastifyRequest, reply: FastifyReply, options: EdgeOptions, presented: string): Promise<AuthenticatedKey | undefined> {
  const known = options.keys.cached(presented);
  if (known) return known;
  await enforceRateLimit(request, reply, options, { subject: `lookup:${request.ctx.client.address}`, policy: options.keyLookupPolicy, scope: 'lookup' });
  return options.keys.authenticate(presented);
}

interface Limit {
  subject: string;
  policy: RateLimitPolicy;
  /** The metric's scope: a key's limit, a client address's, an address's key lookups, or a partner address's events. */
  scope: 'key' | 'address' | 'lookup' | 'partner';
}

async function enforceRateLimit(request: FastifyRequest, reply: FastifyReply, options: EdgeOptions, limit: Limit): Promise<void> {
  const { subject, scope } = limit;
  const policy = { perMinute: limit.policy.perMinute, burstPerSecond: limit.policy.burstPerSecond };
  let decision: RateLimitDecision;
  try {
    decision = await options.limiter.check(subject, policy);
  } catch (error) {
    // Fail open: limits protect capacity, not money (quotes are single-use, initiations idempotent), so an outage of
    // Redis must not stop payments. The outage is logged and shows in readiness.
    options.logger.warn({ err: error, requestId: request.ctx.requestId }, 'rate limiter unavailable; request allowed');
    options.metrics.limiterUnavailable.inc();
    return;
  }
  // Both limits, in the IETF RateLimit draft's policy syntax; Limit, Remaining and Reset describe one of them: the one
  // that refused the request (Reset then equals Retry-After), or else the one with fewer requests left (see gcraDecide).
  void reply.header('X-RateLimit-Policy', `${policy.perMinute};w=60, ${policy.burstPerSecond};w=1`);
  void reply.header('X-RateLimit-Limit', String(decision.limit));
  void reply.header('X-RateLimit-Remaining', String(decision.remaining));
  void reply.header('X-RateLimit-Reset', String(decision.resetSeconds));
  if (!decision.allowed) {
    options.metrics.rateLimited.inc({ scope });
    void reply.header('Retry-After', String(decision.retryAfterSeconds));
    const unit = decision.retryAfterSeconds === 1 ? 'second' : 'seconds';
    throw new AppError('RATE_LIMIT_EXCEEDED', `Rate limit exceeded; retry in ${decision.retryAfterSeconds} ${unit}`);
  }
}

function acceptRequestId(value: string | string[] | undefined): string {
  const given = headerValue(value);
  return given && REQUEST_ID.test(given) ? given : `req_${randomUUID()}`;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

/**
 * On every route: a query parameter the route does not document, or one given twice, is INVALID_REQUEST naming it
 * (`documented` maps `METHOD /v1/path/:param` to the route's parameters; routes missing from it are left alone); so is
 * a query value or a path id that is not storable text (see parseJsonBody), before it reaches a service's query.
 */
export function checkQueryAndPath(fastify: FastifyInstance, documented: ReadonlyMap<string, readonly string[]>): void {
  fastify.addHook('preHandler', async (request) => {
    const allowed = documented.get(`${request.method} ${request.routeOptions.url}`);
    const query = request.query as Record<string, unknown>;
    if (allowed) queryParameters(query, allowed);
    for (const [name, value] of [...Object.entries(query), ...Object.entries((request.params ?? {}) as Record<string, unknown>)]) {
      if ([value].flat().some((text) => typeof text === 'string' && !isStorableText(text))) throw invalidField(name, TEXT_RULE);
    }
  });
}

/** Errors the router finds before any hook has run (a malformed escape, an overlong segment): the envelope, with a request id. */
export function answerBeforeEdge(error: Error, request: FastifyRequest, reply: FastifyReply, logger: Logger | undefined): void {
  void reply.header('x-request-id', acceptRequestId(request.headers['x-request-id']));
  sendError(error, request, reply, logger ?? SILENT);
}

const SILENT = { error: () => undefined } as unknown as Logger;

/**
 * A connection whose bytes are not an HTTP request Node can read (headers over its 16 KiB limit, garbage): Fastify
 * has no request for it, so the envelope is written on the socket, which then closes. Written with `end`, not
 * `destroy`, so that a client still sending its headers reads the answer instead of a reset.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // As Node's own handler: no answer on a socket that is gone, or whose current response has begun (keep-alive).
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason, body]: [number, string, ErrorBody] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', new AppError('MALFORMED_REQUEST', 'headers: are larger than the 16 KiB accepted', 'headers').toBody()]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', new AppError('MALFORMED_REQUEST', 'The request was not received in time').toBody()]
        : [400, 'Bad Request', new AppError('MALFORMED_REQUEST', 'The request is not valid HTTP/1.1').toBody()];
  const text = JSON.stringify({ success: false, error: body });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
      `x-request-id: req_${randomUUID()}\r\nConnection: close\r\n\r\n${text}`,
  );
  setTimeout(() => socket.destroy(), 2000).unref();
}
