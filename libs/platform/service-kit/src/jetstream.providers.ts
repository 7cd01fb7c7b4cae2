import type { Provider } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import type { Pool } from 'pg';
import { Config } from '@ramp/config';
import { JetStreamServer } from '@ramp/messaging';
import { Metrics } from '@ramp/observability';
import type { Logger } from './logger';
import { LOGGER, NATS_CONNECTION, PG_POOL, SERVICE_NAME } from './tokens';

/**
 * The JetStream transport of a service that consumes events, with its inbox in `schema`: bootstrapService starts it
 * (it is a `@nestjs/microservices` Server), and it binds the service's `@JetStreamEventPattern` handlers, on the
 * service's one pool (DatabaseModule).
 */
export function jetStreamTransport(schema: string): Provider {
  return {
    provide: JetStreamServer,
    inject: [SERVICE_NAME, PG_POOL, NATS_CONNECTION, Config, LOGGER, Metrics],
    useFactory: (service: string, pool: Pool, nc: NatsConnection, config: Config, logger: Logger, metrics: Metrics) =>
      new JetStreamServer({
        service,
        schema,
        pool,
        nc,
        namespace: config.string('eventsNamespace'),
        replicas: config.int('streamReplicas', 1, 5),
        logger,
        metrics,
      }),
  };
}
