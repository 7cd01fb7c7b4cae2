import { Module } from '@nestjs/common';
import { CoreModule, databaseProviders, type DatabaseSpec } from '@ramp/service-kit';

/** The swap-transfer service owns the `swap_transfer` schema. Its tables arrive with its issue; today it boots and reports health. */
export const SWAPTRANSFER_DATABASE: DatabaseSpec = { schema: 'swap_transfer', entities: [], migrations: [] };

@Module({
  imports: [CoreModule.forService('swap-transfer')],
  providers: [...databaseProviders(SWAPTRANSFER_DATABASE)],
})
export class SwapTransferModule {}
