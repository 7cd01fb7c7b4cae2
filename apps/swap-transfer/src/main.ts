import 'reflect-metadata';
import { bootstrapService, migrateAndExit } from '@ramp/service-kit';
import { SWAPTRANSFER_DATABASE, SwapTransferModule } from './swap-transfer.module';

if (process.argv[2] === 'migrate') {
  void migrateAndExit(SWAPTRANSFER_DATABASE);
} else {
  void bootstrapService({ name: 'swap-transfer', module: SwapTransferModule, defaultPort: 3103 });
}
