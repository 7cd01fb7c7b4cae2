import { Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { MikroORM } from '@mikro-orm/postgresql';
import Redis from 'ioredis';
import type { Pool } from 'pg';
import { Config } from '@ramp/config';
import { ApiKeySchema, KeyCache, KeyStore, OrganizationSchema, SecretBox } from '@ramp/keys';
import { RedisRateLimiter } from '@ramp/rate-limit';
import {
  CoreModule,
  prunerProviders,
  rpcClientProvider,
  DatabaseModule,
  HealthRegistry,
  LOGGER,
  PG_POOL,
  type DatabaseSpec,
  type Logger,
} from '@ramp/service-kit';
import { IDEMPOTENCY_PRUNING } from './forwarding/idempotency-pruning';
import { BanksHttpController } from './banks/banks.http.controller';
import { ChainsHttpController } from './chains/chains.http.controller';
import { ErrorFilter } from './edge/error.filter';
import { Forwarder } from './forwarding/forwarder';
import { IdempotencyStore } from './forwarding/idempotency-store';
import { KeysNatsController } from './keys/keys.nats.controller';
import { Migration20261122000001 } from './migrations/Migration20261122000001';
import { Migration20261124000001 } from './migrations/Migration20261124000001';
import { Migration20261125000001 } from './migrations/Migration20261125000001';
import { Migration20261128000001 } from './migrations/Migration20261128000001';
import { OfframpHttpController } from './offramp/offramp.http.controller';
import { OnrampHttpController } from './onramp/onramp.http.controller';
import { QuotesHttpController } from './quotes/quotes.http.controller';
import { SandboxHttpController } from './sandbox/sandbox.http.controller';
import { SwapsHttpController } from './swaps/swaps.http.controller';
import { TransactionsHttpController } from './transactions/transactions.http.controller';
import { WalletsHttpController } from './wallets/wallets.http.controller';
import { WebhooksHttpController } from './webhooks/webhooks.http.controller';

export const GATEWAY_DATABASE: DatabaseSpec = {
  schema: 'gateway',
  entities: [OrganizationSchema, ApiKeySchema],
  migrations: [Migration20261122000001, Migration20261124000001, Migration20261125000001, Migration20261128000001],
};

@Injectable()
class GatewayConnectionsCloser implements OnApplicationShutdown {
  constructor(
    @Inject(KeyCache) private readonly cache: KeyCache,
    @Inject(Redis) private readonly redis: Redis,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.cache.stop();
    // QUIT lets the commands in flight finish; a Redis that is down is simply disconnected.
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

@Module({
  imports: [CoreModule.forService('gateway'), DatabaseModule.forService(GATEWAY_DATABASE)],
  controllers: [
    QuotesHttpController,
    BanksHttpController,
    ChainsHttpController,
    WalletsHttpController,
    OfframpHttpController,
    OnrampHttpController,
    SwapsHttpController,
    SandboxHttpController,
    TransactionsHttpController,
    WebhooksHttpController,
    KeysNatsController,
  ],
  providers: [
    { provide: APP_FILTER, useClass: ErrorFilter },
    ...prunerProviders([IDEMPOTENCY_PRUNING]),
    {
      provide: Redis,
      inject: [Config, HealthRegistry],
      useFactory: (config: Config, health: HealthRegistry) => {
        // No offline queue: while Redis is down a command fails at once (and the limiter fails open) instead of hanging.
        // Auto-pipelining: the rate-limit checks of the requests that arrive together go out in one write (a socket
        // write per request was 13% of the gateway's time under bench:quote).
        const redis = new Redis(config.string('redisUrl'), {
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          commandTimeout: 500,
          lazyConnect: false,
          enableAutoPipelining: true,
        });
        redis.on('error', () => undefined);
        // Not critical: without Redis the gateway still serves (rate limiting fails open), so readiness says
        // `degraded` rather than taking every replica out of service.
        health.add(
          'redis',
          async () => {
            await redis.ping();
          },
          { critical: false },
        );
        return redis;
      },
    },
    {
      provide: KeyCache,
      inject: [KeyStore, Config, LOGGER, HealthRegistry],
      useFactory: async (store: KeyStore, config: Config, logger: Logger, health: HealthRegistry) => {
        const ttlMs = config.int('keyCacheTtlMs', 0);
        const cache = new KeyCache(store, {
          databaseUrl: config.string('databaseUrl'),
          ttlMs,
          maxEntries: 10_000,
          onListenerError: (error) => logger.warn({ err: error }, 'API key cache lost its PostgreSQL listener; looking keys up per request until it is back'),
        });
        if (ttlMs > 0) {
          await cache.start();
          // Not critical: without its listener the cache is bypassed and keys are looked up per request.
          health.add(
            'keyCache',
            async () => {
              if (!cache.isUsable) throw new Error('not confirmed to be hearing key changes; keys are looked up per request');
            },
            { critical: false },
          );
        }
        return cache;
      },
    },
    GatewayConnectionsCloser,
    { provide: RedisRateLimiter, inject: [Redis], useFactory: (redis: Redis) => new RedisRateLimiter(redis) },
    { provide: SecretBox, inject: [Config], useFactory: (config: Config) => new SecretBox(config.string('secretsEncryptionKey'), config.isProduction) },
    { provide: KeyStore, inject: [MikroORM, PG_POOL, SecretBox], useFactory: (orm: MikroORM, pool: Pool, box: SecretBox) => new KeyStore(orm.em, pool, box) },
    rpcClientProvider,
    IdempotencyStore,
    Forwarder,
  ],
})
export class GatewayModule {}
