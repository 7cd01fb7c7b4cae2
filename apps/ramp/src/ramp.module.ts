import { Module } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { Config } from '@ramp/config';
import { RpcClient } from '@ramp/messaging';
import { SandboxOfframpRails, SandboxOnrampRails } from '@ramp/providers';
import type { Pool } from 'pg';
import { CoreModule, databaseProviders, NATS_CONNECTION, PG_POOL, pgPoolProviders, type DatabaseSpec } from '@ramp/service-kit';
import { Migration20261122200001 } from './migrations/Migration20261122200001';
import { OFFRAMP_RAILS, OfframpService } from './offramp/offramp.service';
import { OfframpNatsController } from './offramp/offramp.nats.controller';
import { ONRAMP_RAILS, OnrampService } from './onramp/onramp.service';
import { OnrampNatsController } from './onramp/onramp.nats.controller';
import { IntegrationPublisher } from './process/integration-publisher';
import { JobQueue } from './process/jobs';
import { ProcessWorker } from './process/process-worker';
import { RelayHost } from './process/relay-host';
import { TransactionsNatsController } from './transactions/transactions.nats.controller';

/** The ramp service owns the `ramp` schema: its event log, relay checkpoint, inbox and jobs. */
export const RAMP_DATABASE: DatabaseSpec = { schema: 'ramp', entities: [], migrations: [Migration20261122200001] };

@Module({
  imports: [CoreModule.forService('ramp')],
  providers: [
    ...databaseProviders(RAMP_DATABASE),
    ...pgPoolProviders(),
    { provide: RpcClient, inject: [NATS_CONNECTION, Config], useFactory: (nc: NatsConnection, config: Config) => new RpcClient(nc, config.int('rpcTimeoutMs', 1)) },
    { provide: JobQueue, inject: [PG_POOL], useFactory: (pool: Pool) => new JobQueue(pool) },
    { provide: OFFRAMP_RAILS, useFactory: () => new SandboxOfframpRails() },
    OfframpService,
    OfframpNatsController,
    { provide: ONRAMP_RAILS, useFactory: () => new SandboxOnrampRails() },
    OnrampService,
    OnrampNatsController,
    TransactionsNatsController,
    ProcessWorker,
    RelayHost,
    IntegrationPublisher,
  ],
})
export class RampModule {}
