import { Module } from '@nestjs/common';
import { Config } from '@ramp/config';
import { Metrics } from '@ramp/observability';
import {
  BankDirectories,
  liveBankDirectoryFrom,
  liveCollectionsFrom,
  livePayoutsFrom,
  OfframpPayouts,
  OnrampCollections,
  partnerObserver,
  PriceFeeds,
  RouteProviders,
  SandboxBankDirectory,
  SandboxPriceFeed,
  SandboxRouteProvider,
} from '@ramp/providers';
import { CoreModule, DatabaseModule, prunerProviders, rpcClientProvider, type DatabaseSpec } from '@ramp/service-kit';
import { QUOTE_PRUNING } from './quotes/quote-pruning';
import { BanksNatsController } from './banks/banks.nats.controller';
import { ChainMarkets } from './chains/chain-markets';
import { ChainsNatsController } from './chains/chains.nats.controller';
import { Migration20261122000001 } from './migrations/Migration20261122000001';
import { Migration20261125000001 } from './migrations/Migration20261125000001';
import { Migration20261128000001 } from './migrations/Migration20261128000001';
import { QuoteSchema } from './quotes/quote.entity';
import { QuotePricer } from './quotes/quote-pricer';
import { QuoteStore } from './quotes/quote-store';
import { QuotesNatsController } from './quotes/quotes.nats.controller';

export const QUOTE_DATABASE: DatabaseSpec = {
  schema: 'quote',
  entities: [QuoteSchema],
  migrations: [Migration20261122000001, Migration20261125000001, Migration20261128000001],
};

@Module({
  imports: [CoreModule.forService('quote'), DatabaseModule.forService(QUOTE_DATABASE)],
  controllers: [QuotesNatsController, BanksNatsController, ChainsNatsController],
  providers: [
    rpcClientProvider,
    ...prunerProviders([QUOTE_PRUNING]),
    // Live keys: no live price source or routes yet, so their quotes are refused (LIVE_MODE_DISABLED), never simulated.
    { provide: PriceFeeds, useFactory: () => new PriceFeeds(new SandboxPriceFeed(), undefined) },
    {
      // Test keys: the sandbox's directory; live keys: the bank partners of NAME_ENQUIRY_PROVIDERS, or refused.
      provide: BankDirectories,
      inject: [Config, Metrics],
      useFactory: (config: Config, metrics: Metrics) =>
        new BankDirectories(
          new SandboxBankDirectory({ delayMs: config.int('sandboxDelayMs') }),
          liveBankDirectoryFrom(config, partnerObserver(metrics.partnerCallSeconds)),
        ),
    },
    // Live off-ramps: refused at quote time unless a partner of PAYOUT_PROVIDERS has its key (the ramp service pays).
    { provide: OfframpPayouts, inject: [Config], useFactory: (config: Config) => new OfframpPayouts(livePayoutsFrom(config)) },
    // Live on-ramps: refused at quote time unless a partner of COLLECTION_PROVIDERS has its key (the ramp service collects).
    { provide: OnrampCollections, inject: [Config], useFactory: (config: Config) => new OnrampCollections(liveCollectionsFrom(config)) },
    { provide: RouteProviders, useFactory: () => new RouteProviders(new SandboxRouteProvider(), undefined) },
    ChainMarkets,
    QuotePricer,
    QuoteStore,
  ],
})
export class QuoteModule {}
