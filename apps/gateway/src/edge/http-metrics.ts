import type { FastifyInstance } from 'fastify';
import { Counter, Histogram } from 'prom-client';
import { LATENCY_BUCKETS, type Metrics } from '@ramp/observability';
import type { Logger } from '@ramp/service-kit';
import { PROBES } from './probes';

/** The gateway's own instruments, beside the ones every service has. */
export class GatewayMetrics {
  readonly requestSeconds: Histogram<'method' | 'route' | 'status'>;
  /** Requests refused with 429, by who was limited: an API key, or a client address without a valid key. */
  readonly rateLimited: Counter<'scope'>;
  /** Requests let through without a limit because Redis did not answer (the limiter fails open). */
  readonly limiterUnavailable: Counter;

  constructor(metrics: Metrics) {
    const registers = [metrics.registry];
    this.requestSeconds = new Histogram({
      name: 'ramp_http_request_duration_seconds',
      help: 'HTTP requests answered by the gateway, by method, route template (unmatched for an unknown path) and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.rateLimited = new Counter({
      name: 'ramp_rate_limit_rejections_total',
      help: 'Requests refused with 429 RATE_LIMITED, by scope: key (an API key over its limits), address (no valid key, or a key used from outside its allowlist) or lookup (an address presenting too many keys the cache does not hold).',
      labelNames: ['scope'],
      registers,
    });
    this.limiterUnavailable = new Counter({
      name: 'ramp_rate_limiter_unavailable_total',
      help: 'Requests allowed without a rate-limit check because Redis did not answer (the gateway fails open).',
      registers,
    });
  }
}

/**
 * One access-log line and one histogram observation per response, including errors and unknown routes. Probes and
 * scrapes are measured but logged at debug only, so that they do not drown the requests of integrators.
 */
export function observeHttp(fastify: FastifyInstance, metrics: GatewayMetrics, logger: Logger): void {
  fastify.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    const seconds = reply.elapsedTime / 1000;
    metrics.requestSeconds.observe({ method: request.method, route, status: String(status) }, seconds);
    const line = {
      requestId: request.ctx?.requestId,
      method: request.method,
      route,
      // The path only, bounded: the query string and an attacker's megabyte of URL stay out of the logs.
      path: request.url.split('?')[0]!.slice(0, 200),
      status,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
      keyId: request.ctx?.key?.tenant.keyId,
      organizationId: request.ctx?.key?.tenant.organizationId,
      client: request.ctx?.client.address,
    };
    if (PROBES.test(route)) logger.debug(line, 'request');
    else logger.info(line, 'request');
  });
}
