import { Controller, DynamicModule, Get, Global, Inject, Injectable, Module, OnApplicationShutdown, Provider, Res } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Config } from '@ramp/config';
import { connectNats, NatsRpcClient, NatsRpcServer, RpcClient } from '@ramp/messaging';
import { Metrics } from '@ramp/observability';
import type { FastifyReply } from 'fastify';
import type { NatsConnection } from 'nats';
import { HealthController, HealthRegistry } from './health';
import { createLogger, type Logger } from './logger';
import { LOGGER, NATS_CONNECTION, SERVICE_NAME } from './tokens';

/**
 * Drains the NATS connection last: app.close() has closed the transports before the shutdown hooks run, so the NATS
 * server has answered the requests in flight by then.
 */
@Injectable()
class NatsCloser implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  async onApplicationShutdown(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => this.nc.close());
  }
}

/**
 * `/metrics`: the service's Prometheus metrics, beside its health checks on the same port (no key, like the probes).
 * Its OpenAPI description is the gateway's (apps/gateway/src/openapi/operations.ts).
 */
@Controller()
export class MetricsController {
  constructor(@Inject(Metrics) private readonly metrics: Metrics) {}

  @Get('metrics')
  async scrape(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const { contentType, body } = await this.metrics.exposition();
    void reply.header('content-type', contentType).header('cache-control', 'no-store');
    return body;
  }
}

/**
 * An RpcClient for a service that calls others: Nest's NATS client on the service's connection, with RPC_TIMEOUT_MS
 * and the service's metrics.
 */
export const rpcClientProvider: Provider = {
  provide: RpcClient,
  inject: [NATS_CONNECTION, Config, Metrics],
  useFactory: (nc: NatsConnection, config: Config, metrics: Metrics) =>
    new RpcClient(new NatsRpcClient(nc, config.string('eventsNamespace')), config.int('rpcTimeoutMs', 1), metrics),
};

/**
 * What every service has: configuration, a pino logger, one NATS connection, the NATS transport that serves its
 * `@Handles` handlers in the service's queue group (a `@nestjs/microservices` Server: startTransports starts it),
 * Prometheus metrics at /metrics, and /health/live + /health/ready.
 */
@Global()
@Module({})
export class CoreModule {
  static forService(name: string): DynamicModule {
    const providers: Provider[] = [
      { provide: SERVICE_NAME, useValue: name },
      { provide: Config, useValue: new Config() },
      { provide: Metrics, useValue: new Metrics(name) },
      { provide: LOGGER, inject: [Config], useFactory: (config: Config): Logger => createLogger(name, config.string('logLevel')) },
      {
        provide: NATS_CONNECTION,
        inject: [Config, HealthRegistry, LOGGER],
        useFactory: async (config: Config, health: HealthRegistry, logger: Logger): Promise<NatsConnection> => {
          // A subject outside the service's NATS permissions is a bug in SERVICE_ACCESS or a service doing what it must not.
          const nc = await connectNats(config.nats, name, (refusal) => logger.error({ refusal }, 'NATS refused an operation'));
          health.add('nats', async () => {
            if (nc.isClosed()) throw new Error('NATS connection closed');
            await nc.flush();
          });
          return nc;
        },
      },
      {
        provide: NatsRpcServer,
        inject: [NATS_CONNECTION, LOGGER, Metrics, Config],
        useFactory: (connection: NatsConnection, logger: Logger, metrics: Metrics, config: Config) =>
          new NatsRpcServer({ connection, service: name, namespace: config.string('eventsNamespace'), logger, metrics }),
      },
      HealthRegistry,
      NatsCloser,
    ];
    return {
      module: CoreModule,
      imports: [DiscoveryModule],
      controllers: [HealthController, MetricsController],
      providers,
      exports: [SERVICE_NAME, Config, LOGGER, NATS_CONNECTION, NatsRpcServer, HealthRegistry, Metrics],
    };
  }
}
