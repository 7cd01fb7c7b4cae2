import 'reflect-metadata';
import { bootstrapService, migrateAndExit } from '@ramp/service-kit';
import { NOTIFIER_DATABASE, NotifierModule } from './notifier.module';

if (process.argv[2] === 'migrate') {
  void migrateAndExit(NOTIFIER_DATABASE);
} else {
  void bootstrapService({ name: 'notifier', module: NotifierModule, defaultPort: 3105 });
}
