import type { INestApplication, Type } from '@nestjs/common';
import { DiscoveryService, NestFactory } from '@nestjs/core';
import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Config } from '@ramp/config';
import { HealthRegistry } from './health';
import { createLogger } from './logger';

export interface ServiceSpec {
  name: string;
  module: Type<unknown>;
  /** Port of the service's own HTTP server (health checks, metrics) when HEALTH_PORT is not set. */
  defaultPort: number;
}

const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Boots a back-end service: Nest on Fastify for health and metrics, NATS handlers registered by the core module.
 * SIGTERM and SIGINT stop taking work, finish what is in flight and close connections, bounded in time.
 */
export async function bootstrapService(spec: ServiceSpec): Promise<INestApplication> {
  const config = new Config();
  const logger = createLogger(spec.name, config.string('logLevel'));
  try {
    const app = await NestFactory.create<NestFastifyApplication>(spec.module, new FastifyAdapter(), { logger: ['error', 'warn'] });
    await startTransports(app);
    const configured = config.int('healthPort', 0, 65535);
    const port = configured === 0 ? spec.defaultPort : configured;
    await app.listen(port, config.string('host'));
    handleShutdown(app, spec.name);
    logger.info({ port }, `${spec.name} started`);
    return app;
  } catch (error) {
    logger.fatal({ err: error }, `${spec.name} failed to start`);
    process.exit(1);
  }
}

/**
 * Connects every transport strategy the service's modules provide (a provider that is a `@nestjs/microservices`
 * Server: the NATS request/reply server, the JetStream consumers) and starts them, so that each binds the
 * `@MessagePattern` and `@EventPattern` handlers of its own transport. `app.close()` closes them.
 */
export async function startTransports(app: INestApplication): Promise<void> {
  const strategies = app
    .get(DiscoveryService)
    .getProviders()
    .map((wrapper) => wrapper.instance as unknown)
    .filter((instance): instance is Server & CustomTransportStrategy => instance instanceof Server);
  for (const strategy of new Set(strategies)) app.connectMicroservice({ strategy }, { inheritAppConfig: true });
  await app.startAllMicroservices();
}

export function handleShutdown(app: INestApplication, name: string): void {
  const logger = createLogger(name, new Config().string('logLevel'));
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${name} stopping`);
    app.get(HealthRegistry).markShuttingDown();
    const timer = setTimeout(() => {
      logger.error(`${name} did not stop within ${SHUTDOWN_GRACE_MS} ms; exiting`);
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    timer.unref();
    app
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        logger.error({ err: error }, 'error while stopping');
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
