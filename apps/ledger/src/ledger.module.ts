import { Module } from '@nestjs/common';
import { CoreModule, databaseProviders, pgPoolProviders, type DatabaseSpec } from '@ramp/service-kit';
import { Migration20261122100001 } from './migrations/Migration20261122100001';
import { WalletService } from './wallets/wallet-service';
import { WalletsNatsController } from './wallets/wallets.nats.controller';

/** The ledger service owns the `ledger` schema: managed wallets and the double-entry journal. */
export const LEDGER_DATABASE: DatabaseSpec = { schema: 'ledger', entities: [], migrations: [Migration20261122100001] };

@Module({
  imports: [CoreModule.forService('ledger')],
  providers: [...databaseProviders(LEDGER_DATABASE), ...pgPoolProviders(), WalletService, WalletsNatsController],
})
export class LedgerModule {}
