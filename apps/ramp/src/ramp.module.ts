import { Module } from '@nestjs/common';
import { CoreModule, databaseProviders, type DatabaseSpec } from '@ramp/service-kit';

/** The ramp service owns the `ramp` schema. Its tables arrive with its issue; today it boots and reports health. */
export const RAMP_DATABASE: DatabaseSpec = { schema: 'ramp', entities: [], migrations: [] };

@Module({
  imports: [CoreModule.forService('ramp')],
  providers: [...databaseProviders(RAMP_DATABASE)],
})
export class RampModule {}
