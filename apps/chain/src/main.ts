import 'reflect-metadata';
import { bootstrapService, migrateAndExit } from '@ramp/service-kit';
import { CHAIN_DATABASE, ChainModule } from './chain.module';

if (process.argv[2] === 'migrate') {
  void migrateAndExit(CHAIN_DATABASE);
} else {
  void bootstrapService({ name: 'chain', module: ChainModule, defaultPort: 3106 });
}
