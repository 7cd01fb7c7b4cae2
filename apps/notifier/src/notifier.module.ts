import { readFileSync } from 'fs';
import { Module } from '@nestjs/common';
import { Pool } from 'pg';
import { Config } from '@ramp/config';
import { KeySigningSecret } from '@ramp/contracts';
import { Waker } from '@ramp/database';
import { SecretBox } from '@ramp/keys';
import { RpcClient } from '@ramp/messaging';
import { Metrics } from '@ramp/observability';
import {
  CoreModule,
  prunerProviders,
  rpcClientProvider,
  DatabaseModule,
  jetStreamTransport,
  LOGGER,
  PG_POOL,
  type DatabaseSpec,
  type Logger,
} from '@ramp/service-kit';
import { AllowedHosts } from '@ramp/webhooks';
import { DeliveriesEventsController } from './deliveries/deliveries.events.controller';
import { DeliveryHost } from './deliveries/delivery-host';
import { DeliveryStore } from './deliveries/delivery-store';
import { DeliveryMetrics } from './deliveries/delivery-metrics';
import { DeliveryWorker, systemClock } from './deliveries/delivery-worker';
import { HttpsSender } from './deliveries/https-sender';
import { SigningSecrets } from './deliveries/signing-secrets';
import { Migration20261123100001 } from './migrations/Migration20261123100001';
import { Migration20261125000001 } from './migrations/Migration20261125000001';
import { Migration20261126200001 } from './migrations/Migration20261126200001';
import { Migration20261128000001 } from './migrations/Migration20261128000001';
import { DELIVERY_PRUNING } from './deliveries/delivery-pruning';
import { TargetDns } from './webhooks/target-dns';
import { WebhookRegistry } from './webhooks/webhook-registry';
import { WebhooksNatsController } from './webhooks/webhooks.nats.controller';

/** The notifier service owns the `notifier` schema: webhooks, deliveries, their attempts and its consumer's inbox. */
export const NOTIFIER_DATABASE: DatabaseSpec = {
  schema: 'notifier',
  entities: [],
  migrations: [Migration20261123100001, Migration20261125000001, Migration20261126200001, Migration20261128000001],
};

/** A delivery's lease outlives its send timeout by this much, so that a slow receiver is never sent it twice at once. */
const LEASE_MARGIN_MS = 15_000;

@Module({
  imports: [CoreModule.forService('notifier'), DatabaseModule.forService(NOTIFIER_DATABASE)],
  controllers: [WebhooksNatsController, DeliveriesEventsController],
  providers: [
    jetStreamTransport(NOTIFIER_DATABASE.schema),
    ...prunerProviders([DELIVERY_PRUNING]),
    rpcClientProvider,
    { provide: SecretBox, inject: [Config], useFactory: (config: Config) => new SecretBox(config.string('secretsEncryptionKey'), config.isProduction) },
    {
      provide: AllowedHosts,
      inject: [Config],
      useFactory: (config: Config) => new AllowedHosts(config.list('webhookAllowHosts'), { localTesting: !config.isProduction }),
    },
    { provide: Waker, useFactory: () => new Waker() },
    { provide: DeliveryStore, inject: [PG_POOL], useFactory: (pool: Pool) => new DeliveryStore(pool) },
    {
      provide: TargetDns,
      inject: [Config],
      useFactory: (config: Config) =>
        new TargetDns({ timeoutMs: config.int('webhookDnsTimeoutMs', 1), tries: config.int('webhookDnsTries', 1), servers: config.list('webhookDnsServers') }),
    },
    {
      provide: HttpsSender,
      inject: [Config, AllowedHosts, TargetDns],
      useFactory: (config: Config, allowed: AllowedHosts, dns: TargetDns) => {
        const caFile = config.string('webhookCaFile');
        return new HttpsSender({
          allowed,
          resolve: (hostname, callback) => dns.lookup(hostname, callback),
          extraCa: caFile ? readFileSync(caFile, 'utf8') : undefined,
          timeoutMs: config.int('webhookTimeoutMs', 1),
          maxSocketsPerHost: config.int('webhookConcurrency', 1),
        });
      },
    },
    {
      provide: SigningSecrets,
      inject: [SecretBox, RpcClient],
      useFactory: (box: SecretBox, rpc: RpcClient) =>
        new SigningSecrets(box, async (tenant) => (await rpc.call(KeySigningSecret.contract, tenant, { keyId: tenant.keyId })).secretSealed),
    },
    {
      provide: DeliveryWorker,
      inject: [DeliveryStore, HttpsSender, SigningSecrets, Waker, Config, LOGGER, Metrics, PG_POOL],
      useFactory: (
        store: DeliveryStore,
        sender: HttpsSender,
        secrets: SigningSecrets,
        waker: Waker,
        config: Config,
        logger: Logger,
        metrics: Metrics,
        pool: Pool,
      ) =>
        new DeliveryWorker({
          store,
          sender,
          secrets,
          waker,
          logger,
          metrics: new DeliveryMetrics(metrics, pool),
          clock: systemClock,
          concurrency: config.int('webhookConcurrency', 1),
          perTenantConcurrency: config.int('webhookTenantConcurrency', 1),
          leaseMs: config.int('webhookTimeoutMs', 1) + LEASE_MARGIN_MS,
          pollMs: 1000,
        }),
    },
    {
      provide: WebhookRegistry,
      inject: [PG_POOL, SecretBox, AllowedHosts, TargetDns],
      useFactory: (pool: Pool, box: SecretBox, allowed: AllowedHosts, dns: TargetDns) => new WebhookRegistry(pool, box, allowed, dns),
    },
    DeliveryHost,
  ],
})
export class NotifierModule {}
