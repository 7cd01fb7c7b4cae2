import { Module } from '@nestjs/common';
import { CoreModule, databaseProviders, type DatabaseSpec } from '@ramp/service-kit';

/** The ledger service owns the `ledger` schema. Its tables arrive with its issue; today it boots and reports health. */
export const LEDGER_DATABASE: DatabaseSpec = { schema: 'ledger', entities: [], migrations: [] };

@Module({
  imports: [CoreModule.forService('ledger')],
  providers: [...databaseProviders(LEDGER_DATABASE)],
})
export class LedgerModule {}
