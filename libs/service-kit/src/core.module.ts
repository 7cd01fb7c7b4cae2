import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown, Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Config } from '@ramp/config';
import { connectNats, RpcServer } from '@ramp/messaging';
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

/**
 * What every service has: configuration, a pino logger, a NATS connection with an RPC server in the service's
 * queue group, @RpcHandler discovery, and /health/live + /health/ready.
 */
@Global()
@Module({})
export class CoreModule {
  static forService(name: string): DynamicModule {
    const providers: Provider[] = [
      { provide: SERVICE_NAME, useValue: name },
      { provide: Config, useValue: new Config() },
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
        inject: [NATS_CONNECTION, LOGGER],
        useFactory: (nc: NatsConnection, logger: Logger) => new RpcServer(nc, name, logger),
      },
      HealthRegistry,
      RpcExplorer,
      NatsCloser,
    ];
    return {
      module: CoreModule,
      imports: [DiscoveryModule],
      controllers: [HealthController],
      providers,
      exports: [SERVICE_NAME, Config, LOGGER, NATS_CONNECTION, RpcServer, HealthRegistry],
    };
  }
}
