import 'reflect-metadata';
import { Config } from '@ramp/config';
import { applyMigrations, ensureDatabase, openDatabase } from '@ramp/database';
import { Journal } from '../journal/journal';
import { LEDGER_DATABASE } from '../ledger.module';

/**
 * `npm run ledger:check`: proves the books. Prints JSON (the assets whose postings do not sum to zero, the balances
 * that differ from the sum of their postings, the wallet balances below zero) and exits 1 when any list is not empty.
 */
async function main(): Promise<void> {
  const url = new Config().string('databaseUrl');
  await ensureDatabase(url);
  const database = await openDatabase({ ...LEDGER_DATABASE, url, poolMax: 2, applicationName: 'ledger-check' });
  try {
    await applyMigrations(database, LEDGER_DATABASE.schema);
    const report = await new Journal().check(database.pool);
    const ok = report.unbalancedAssets.length === 0 && report.driftedBalances.length === 0 && report.negative.length === 0;
    process.stdout.write(`${JSON.stringify({ ok, ...report }, null, 2)}\n`);
    process.exitCode = ok ? 0 : 1;
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`ledger:check failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
