import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Config } from '@ramp/config';
import { IpAllowlist, KeyCache } from '@ramp/keys';
import { RpcClient } from '@ramp/messaging';
import { Metrics } from '@ramp/observability';
import { RedisRateLimiter } from '@ramp/rate-limit';
import { createLogger, handleShutdown, LOGGER, migrateAndExit, serveOperations, startTransports, type Logger } from '@ramp/service-kit';
import { ClientResolver } from './edge/client-address';
import { answerBeforeEdge, answerClientError, installEdge, checkQueryAndPath } from './edge/edge';
import { parseJsonBody } from './edge/json-body';
import { GatewayMetrics, observeHttp } from './edge/http-metrics';
import { sendError } from './edge/error.filter';
import { GATEWAY_DATABASE, GatewayModule } from './gateway.module';
import { buildOpenApi, queryParametersOf, serveOpenApi } from './openapi/openapi';
import { servePartnerWebhooks } from './partners/partner-webhooks';

/**
 * Nest would install its own Fastify error handler at init, turning Fastify's coded errors (bad JSON, wrong content
 * type, oversized body) into bare HttpExceptions; the gateway installs one handler of its own instead (sendError).
 */
class GatewayAdapter extends FastifyAdapter {
  override setErrorHandler(): ReturnType<FastifyAdapter['setErrorHandler']> {
    return this.getInstance();
  }
}

const ROUTES = new WeakMap<NestFastifyApplication, string[]>();

/** Every route the gateway serves, as `METHOD /path` with Fastify's `:param` syntax (HEAD twins of GET left out). */
export function servedRoutes(app: NestFastifyApplication): string[] {
  return [...(ROUTES.get(app) ?? [])];
}

/** Builds the gateway application (also used by tests that start it in-process). */
export async function createGateway(config = new Config()): Promise<NestFastifyApplication> {
  /** The application's logger once it exists: the handlers Fastify takes at construction log through it. */
  const late: { logger?: Logger } = {};
  const adapter = new GatewayAdapter({
    bodyLimit: config.int('bodyLimitBytes', 1024),
    trustProxy: false,
    return503OnClosing: true,
    // A request without Host reaches the edge, which refuses it with the envelope (Node would answer a bare 400).
    http: { requireHostHeader: false },
    // Malformed percent-encoding and overlong path segments, found by the router before any hook runs.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => answerBeforeEdge(error, request, reply, late.logger),
    // Requests that are not valid HTTP at all (oversized headers, garbage): answered with the envelope, then closed.
    clientErrorHandler: answerClientError,
  });
  const fastify = adapter.getInstance();
  const routes: string[] = [];
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push(`${method} ${route.url}`);
  });
  // JSON only: Fastify's own text/plain parser would let a non-JSON body through. Bodies are parsed by parseJsonBody,
  // which also refuses duplicate keys, __proto__ and deep nesting.
  fastify.removeContentTypeParser(['text/plain', 'application/json']);
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule, adapter, { logger: ['error', 'warn'], bodyParser: false });
  app.setGlobalPrefix('v1', { exclude: ['health/live', 'health/ready', 'metrics'] });
  const logger = app.get<Logger>(LOGGER);
  late.logger = logger;
  const metrics = new GatewayMetrics(app.get(Metrics));
  observeHttp(fastify, metrics, logger);
  const anonymousPerMinute = config.int('anonymousPerMinute', 1);
  const keyLookupsPerMinute = config.int('keyLookupsPerMinute', 1);
  const partnerPerMinute = config.int('partnerWebhookPerMinute', 1);
  installEdge(fastify, {
    keys: app.get(KeyCache),
    limiter: app.get(RedisRateLimiter),
    resolver: new ClientResolver(config.list('trustedProxies')),
    logger,
    allowInsecureHttp: config.bool('allowInsecureHttp'),
    allowLoopbackHttp: !config.isProduction,
    anonymousPolicy: { perMinute: anonymousPerMinute, burstPerSecond: Math.max(1, Math.ceil(anonymousPerMinute / 6)) },
    keyLookupPolicy: { perMinute: keyLookupsPerMinute, burstPerSecond: Math.max(1, Math.ceil(keyLookupsPerMinute / 6)) },
    metrics,
    probesElsewhere: config.int('opsPort', 0, 65535) !== 0,
    partners: {
      allowlist: new IpAllowlist(config.list('partnerWebhookAllowedIps')),
      policy: { perMinute: partnerPerMinute, burstPerSecond: Math.max(1, Math.ceil(partnerPerMinute / 6)) },
    },
  });
  fastify.setErrorHandler((error, request, reply) => sendError(error, request, reply, logger));
  // Every route refuses query parameters it does not document (filled in from the document once it is built) and
  // text no service could store.
  const documentedQuery = new Map<string, string[]>();
  checkQueryAndPath(fastify, documentedQuery);
  await servePartnerWebhooks(fastify, { rpc: app.get(RpcClient), logger });
  await app.init();
  const document = buildOpenApi(app);
  for (const [route, names] of queryParametersOf(document)) documentedQuery.set(route, names);
  serveOpenApi(fastify, document);
  ROUTES.set(app, routes);
  return app;
}

async function main(): Promise<void> {
  const config = new Config();
  const logger = createLogger('gateway', config.string('logLevel'));
  try {
    const app = await createGateway(config);
    // The gateway answers one request/reply subject itself (the API secret that signs a tenant's callbacks).
    await startTransports(app);
    const port = config.int('port', 0, 65535);
    await app.listen(port, config.string('host'));
    // Probes and metrics on a port of their own, when configured (the manifests do): see OPS_PORT.
    const opsPort = config.int('opsPort', 0, 65535);
    if (opsPort !== 0) await serveOperations(app, opsPort, config.string('host'));
    handleShutdown(app, 'gateway');
    logger.info({ port }, `gateway listening on http://${config.string('host')}:${port}/v1`);
  } catch (error) {
    logger.fatal({ err: error }, 'gateway failed to start');
    process.exit(1);
  }
}

if (require.main === module) {
  if (process.argv[2] === 'migrate') void migrateAndExit(GATEWAY_DATABASE);
  else void main();
}
