import 'reflect-metadata';
import { bootstrapService, migrateAndExit } from '@ramp/service-kit';
import { RAMP_DATABASE, RampModule } from './ramp.module';

if (process.argv[2] === 'migrate') {
  void migrateAndExit(RAMP_DATABASE);
} else {
  void bootstrapService({ name: 'ramp', module: RampModule, defaultPort: 3102 });
}
