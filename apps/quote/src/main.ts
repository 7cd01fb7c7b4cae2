import 'reflect-metadata';
import { bootstrapService, migrateAndExit } from '@ramp/service-kit';
import { QUOTE_DATABASE, QuoteModule } from './quote.module';

if (process.argv[2] === 'migrate') {
  void migrateAndExit(QUOTE_DATABASE);
} else {
  void bootstrapService({ name: 'quote', module: QuoteModule, defaultPort: 3101 });
}
