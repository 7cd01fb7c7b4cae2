import { Module } from '@nestjs/common';
import { rampEvents } from '@ramp/contracts';
import { JOB_RUNNER, processProviders, type JobRunner } from '@ramp/process-kit';
import { SandboxOfframpRails, SandboxOnrampRails } from '@ramp/providers';
import { RAMP_KINDS } from '@ramp/ramping';
import { Config } from '@ramp/config';
import {
  CoreModule,
  LOGGER,
  rpcClientProvider,
  type Logger,
  DatabaseModule,
  jetStreamTransport,
  recordedWaitsProvider,
  type DatabaseSpec,
} from '@ramp/service-kit';
import { Migration20261122200001 } from './migrations/Migration20261122200001';
import { Migration20261128000001 } from './migrations/Migration20261128000001';
import { Migration20261130000001 } from './migrations/Migration20261130000001';
import { Migration20261202000001 } from './migrations/Migration20261202000001';
import { Migration20261202000002 } from './migrations/Migration20261202000002';
import { Migration20261204000001 } from './migrations/Migration20261204000001';
import { Migration20261204000002 } from './migrations/Migration20261204000002';
import { Migration20261205000001 } from './migrations/Migration20261205000001';
import { OFFRAMP_RAILS, OfframpService } from './offramp/offramp.service';
import { OfframpNatsController } from './offramp/offramp.nats.controller';
import { PayoutEvents } from './offramp/payout-events';
import { CollectionEvents } from './onramp/collection-events';
import { OnrampCollectionAccounts } from './onramp/onramp-collections';
import { ONRAMP_RAILS, OnrampService } from './onramp/onramp.service';
import { OnrampNatsController } from './onramp/onramp.nats.controller';
import { PartnerEvents } from './partners/partner-events';
import { PartnerEventsNatsController } from './partners/partner-events.nats.controller';
import { RampChainEventsController } from './process/chain.events.controller';
import { RAMP_LOG } from './process/log';
import { DenylistFile } from './screening/denylist-file';
import { TransactionsNatsController } from './transactions/transactions.nats.controller';

/** The ramp service owns the `ramp` schema: its event log, relay checkpoint, inbox and jobs. */
export const RAMP_DATABASE: DatabaseSpec = {
  schema: 'ramp',
  entities: [],
  migrations: [
    Migration20261122200001,
    Migration20261128000001,
    Migration20261130000001,
    Migration20261202000001,
    Migration20261202000002,
    Migration20261204000001,
    Migration20261204000002,
    Migration20261205000001,
  ],
};

@Module({
  imports: [CoreModule.forService('ramp'), DatabaseModule.forService(RAMP_DATABASE)],
  controllers: [OfframpNatsController, OnrampNatsController, TransactionsNatsController, RampChainEventsController, PartnerEventsNatsController],
  providers: [
    jetStreamTransport(RAMP_DATABASE.schema),
    rpcClientProvider,
    // `events.ramp.<event type>` in the RAMP_EVENTS stream; integration events for on-ramps and off-ramps.
    ...processProviders({ service: 'ramp', log: RAMP_LOG, events: rampEvents, kinds: RAMP_KINDS }),
    {
      provide: JOB_RUNNER,
      inject: [OfframpService, OnrampService],
      useFactory:
        (offramps: OfframpService, onramps: OnrampService): JobRunner =>
        (job) =>
          onramps.process.owns(job.stream_id) ? onramps.runStep(job) : offramps.runStep(job),
    },
    { provide: OFFRAMP_RAILS, useFactory: () => new SandboxOfframpRails() },
    // A sandbox deposit answers once the off-ramp has recorded it: an append to the log NOTIFYs its channel.
    recordedWaitsProvider(RAMP_LOG.channel),
    // The screening denylist, one for both kinds of ramp: read at start, and again when the operator updates it.
    {
      provide: DenylistFile,
      inject: [Config, LOGGER],
      useFactory: (config: Config, logger: Logger) =>
        new DenylistFile(config.string('screeningDenylistFile').trim() || undefined, logger, config.bool('liveProvidersEnabled')),
    },
    OfframpService,
    { provide: ONRAMP_RAILS, useFactory: () => new SandboxOnrampRails() },
    OnrampCollectionAccounts,
    OnrampService,
    PartnerEvents,
    PayoutEvents,
    CollectionEvents,
  ],
})
export class RampModule {}
