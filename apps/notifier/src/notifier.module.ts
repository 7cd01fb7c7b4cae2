import { Module } from '@nestjs/common';
import { CoreModule, databaseProviders, type DatabaseSpec } from '@ramp/service-kit';

/** The notifier service owns the `notifier` schema. Its tables arrive with its issue; today it boots and reports health. */
export const NOTIFIER_DATABASE: DatabaseSpec = { schema: 'notifier', entities: [], migrations: [] };

@Module({
  imports: [CoreModule.forService('notifier')],
  providers: [...databaseProviders(NOTIFIER_DATABASE)],
})
export class NotifierModule {}
