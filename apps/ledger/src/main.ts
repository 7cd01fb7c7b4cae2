import 'reflect-metadata';
import { bootstrapService, migrateAndExit } from '@ramp/service-kit';
import { LEDGER_DATABASE, LedgerModule } from './ledger.module';

if (process.argv[2] === 'migrate') {
  void migrateAndExit(LEDGER_DATABASE);
} else {
  void bootstrapService({ name: 'ledger', module: LedgerModule, defaultPort: 3104 });
}
