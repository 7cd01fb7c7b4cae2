import { Module } from '@nestjs/common';
import { CoreModule, DatabaseModule, jetStreamTransport, recordedWaitsProvider, rpcClientProvider, type DatabaseSpec } from '@ramp/service-kit';
import { Migration20261122100001 } from './migrations/Migration20261122100001';
import { Migration20261122200002 } from './migrations/Migration20261122200002';
import { Migration20261125000001 } from './migrations/Migration20261125000001';
import { Migration20261126120001 } from './migrations/Migration20261126120001';
import { Migration20261127000001 } from './migrations/Migration20261127000001';
import { Migration20261128000001 } from './migrations/Migration20261128000001';
import { Migration20261129000001 } from './migrations/Migration20261129000001';
import { Migration20261213000001 } from './migrations/Migration20261213000001';
import { TransactionsEventsController } from './transactions/transactions.events.controller';
import { TransactionsQuery } from './transactions/transactions-query';
import { TransactionsNatsController } from './transactions/transactions.nats.controller';
import { WalletService } from './wallets/wallet-service';
import { WalletsNatsController } from './wallets/wallets.nats.controller';
import { ChainBooks } from './chain/chain-books';
import { TreasuryNatsController } from './chain/treasury.nats.controller';
import { DepositBooks, WALLET_DEPOSITS_CHANNEL } from './chain/deposit-books';
import { ChainEventsController } from './chain/chain.events.controller';
import { Reconciler } from './chain/reconciler';

/** The ledger service owns the `ledger` schema: managed wallets and the double-entry journal. */
export const LEDGER_DATABASE: DatabaseSpec = {
  schema: 'ledger',
  entities: [],
  migrations: [
    Migration20261122100001,
    Migration20261122200002,
    Migration20261125000001,
    Migration20261126120001,
    Migration20261127000001,
    Migration20261128000001,
    Migration20261129000001,
    Migration20261213000001,
  ],
};

@Module({
  imports: [CoreModule.forService('ledger'), DatabaseModule.forService(LEDGER_DATABASE)],
  controllers: [WalletsNatsController, TransactionsNatsController, TransactionsEventsController, ChainEventsController, TreasuryNatsController],
  providers: [
    jetStreamTransport(LEDGER_DATABASE.schema),
    rpcClientProvider,
    recordedWaitsProvider(WALLET_DEPOSITS_CHANNEL),
    WalletService,
    DepositBooks,
    ChainBooks,
    Reconciler,
    TransactionsQuery,
  ],
})
export class LedgerModule {}
