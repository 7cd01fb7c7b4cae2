import { Controller, DynamicModule, Get, Global, Inject, Injectable, Module, OnApplicationShutdown, Provider, Res } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Config } from '@ramp/config';
import { connectNats, RpcClient, RpcServer } from '@ramp/messaging';
import { Metrics } from '@ramp/observability';
import type { FastifyReply } from 'fastify';
import type { NatsConnection } from 'nats';
import { HealthController, HealthRegistry } from './health';
import { createLogger, type Logger } from './logger';
import { RpcExplorer } from './rpc-handler';
import { LOGGER, NATS_CONNECTION, SERVICE_NAME } from './tokens';

/** Drains the NATS connection last, after the RPC server has finished its in-flight requests. */
@Injectable()
class NatsCloser implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  async onApplicationShutdown(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => this.nc.close());
  }
}

/** `/metrics`: the service's Prometheus metrics, beside its health checks on the same port (no key, like the probes). */
@ApiTags('operations')
@Controller()
export class MetricsController {
  constructor(@Inject(Metrics) private readonly metrics: Metrics) {}

  @Get('metrics')
  @ApiOperation({ summary: 'Prometheus metrics in the text exposition format (for scrapers inside the cluster; no key, not under /v1).' })
  @ApiProduces('text/plain')
  async scrape(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const { contentType, body } = await this.metrics.exposition();
    void reply.header('content-type', contentType).header('cache-control', 'no-store');
    return body;
  }
}

/** An RpcClient for a service that calls others, with RPC_TIMEOUT_MS and the service's metrics. */
export const rpcClientProvider: Provider = {
  provide: RpcClient,
  inject: [NATS_CONNECTION, Config, Metrics],
  useFactory: (nc: NatsConnection, config: Config, metrics: Metrics) => new RpcClient(nc, config.int('rpcTimeoutMs', 1), metrics),
};

/**
 * What every service has: configuration, a pino logger, a NATS connection with an RPC server in the service's
 * queue group, @RpcHandler discovery, Prometheus metrics at /metrics, and /health/live + /health/ready.
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
        inject: [Config, HealthRegistry],
        useFactory: async (config: Config, health: HealthRegistry): Promise<NatsConnection> => {
          const nc = await connectNats(config.string('natsUrl'), name);
          health.add('nats', async () => {
            if (nc.isClosed()) throw new Error('NATS connection closed');
            await nc.flush();
          });
          return nc;
        },
      },
      {
        provide: RpcServer,
        inject: [NATS_CONNECTION, LOGGER, Metrics],
        useFactory: (nc: NatsConnection, logger: Logger, metrics: Metrics) => new RpcServer(nc, name, logger, metrics),
      },
      HealthRegistry,
      RpcExplorer,
      NatsCloser,
    ];
    return {
      module: CoreModule,
      imports: [DiscoveryModule],
      controllers: [HealthController, MetricsController],
      providers,
      exports: [SERVICE_NAME, Config, LOGGER, NATS_CONNECTION, RpcServer, HealthRegistry, Metrics],
    };
  }
}
