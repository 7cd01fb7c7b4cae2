import { Module } from '@nestjs/common';
import { swapTransferEvents } from '@ramp/contracts';
import { JOB_RUNNER, processProviders, type JobRunner } from '@ramp/process-kit';
import { PriceFeeds, ROUTE_RAILS, RouteProviders, SandboxPriceFeed, SandboxRouteProvider, SandboxRouteRails } from '@ramp/providers';
import { ROUTE_KINDS } from '@ramp/routing';
import { CoreModule, rpcClientProvider, DatabaseModule, jetStreamTransport, type DatabaseSpec } from '@ramp/service-kit';
import { Migration20261123000001 } from './migrations/Migration20261123000001';
import { Migration20261128000001 } from './migrations/Migration20261128000001';
import { Migration20261130000001 } from './migrations/Migration20261130000001';
import { Migration20261205000001 } from './migrations/Migration20261205000001';
import { SwapTransferChainEventsController } from './process/chain.events.controller';
import { SWAP_TRANSFER_LOG } from './process/log';
import { RouteService } from './route/route.service';
import { SwapNatsController } from './swap/swap.nats.controller';
import { TransactionsNatsController } from './transactions/transactions.nats.controller';
import { TransferNatsController } from './transfer/transfer.nats.controller';

/** The swap-transfer service owns the `swap_transfer` schema: its event log, relay checkpoint, inbox and jobs. */
export const SWAPTRANSFER_DATABASE: DatabaseSpec = {
  schema: 'swap_transfer',
  entities: [],
  migrations: [Migration20261123000001, Migration20261128000001, Migration20261130000001, Migration20261205000001],
};

@Module({
  imports: [CoreModule.forService('swap-transfer'), DatabaseModule.forService(SWAPTRANSFER_DATABASE)],
  controllers: [SwapNatsController, TransferNatsController, TransactionsNatsController, SwapTransferChainEventsController],
  providers: [
    jetStreamTransport(SWAPTRANSFER_DATABASE.schema),
    rpcClientProvider,
    // `events.swap-transfer.<event type>` in the SWAP_TRANSFER_EVENTS stream; integration events for swaps and transfers.
    ...processProviders({ service: 'swap-transfer', log: SWAP_TRANSFER_LOG, events: swapTransferEvents, kinds: ROUTE_KINDS }),
    {
      provide: JOB_RUNNER,
      inject: [RouteService],
      useFactory:
        (routes: RouteService): JobRunner =>
        (job) =>
          routes.runStep(job),
    },
    { provide: ROUTE_RAILS, useFactory: () => new SandboxRouteRails() },
    // Live keys: no live routes or prices yet (refused, never simulated).
    { provide: RouteProviders, useFactory: () => new RouteProviders(new SandboxRouteProvider(), undefined) },
    { provide: PriceFeeds, useFactory: () => new PriceFeeds(new SandboxPriceFeed(), undefined) },
    RouteService,
  ],
})
export class SwapTransferModule {}
