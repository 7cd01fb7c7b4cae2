import { Module } from '@nestjs/common';
import { CoreModule, databaseProviders, pgPoolProviders, type DatabaseSpec } from '@ramp/service-kit';
import { Migration20261122100001 } from './migrations/Migration20261122100001';
import { Migration20261122200002 } from './migrations/Migration20261122200002';
import { TransactionsConsumer } from './transactions/transactions-consumer';
import { TransactionsQuery } from './transactions/transactions-query';
import { TransactionsNatsController } from './transactions/transactions.nats.controller';
import { WalletService } from './wallets/wallet-service';
import { WalletsNatsController } from './wallets/wallets.nats.controller';

/** The ledger service owns the `ledger` schema: managed wallets and the double-entry journal. */
export const LEDGER_DATABASE: DatabaseSpec = { schema: 'ledger', entities: [], migrations: [Migration20261122100001, Migration20261122200002] };

@Module({
  imports: [CoreModule.forService('ledger')],
  providers: [
    ...databaseProviders(LEDGER_DATABASE),
    ...pgPoolProviders(),
    WalletService,
    WalletsNatsController,
    TransactionsQuery,
    TransactionsNatsController,
    TransactionsConsumer,
  ],
})
export class LedgerModule {}
