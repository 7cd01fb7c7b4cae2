import 'reflect-metadata';
import { Config } from '@ramp/config';
import { ENVIRONMENTS } from '@ramp/contracts';
import { openServiceDatabase } from '@ramp/service-kit';
import { connectNats, NatsRpcClient, RpcClient } from '@ramp/messaging';
import { reconcileChains, type Reconciliation } from '../chain/chain-books';
import { Journal } from '../journal/journal';
import { LEDGER_DATABASE } from '../ledger.module';

/**
 * `npm run ledger:check`: proves the books. Prints JSON: the assets whose postings do not sum to zero, the balances
 * that differ from the sum of their postings, the wallet balances below zero, and, per environment, each token whose
 * holdings on its chain differ from the books (read by the chain service, over NATS), and each token whose customers'
 * wallet balances exceed what the platform holds of it there (`uncovered`), and each managed wallet whose smart
 * account holds other than its balance (`wallets.drifts`, with how many were compared and how many were left for a
 * later check while something was on its way). Exits 1 when any list is not
 * empty, 2 when it could not check (`--books-only` skips the chains).
 */
async function main(): Promise<void> {
  const config = new Config();
  // As the ledger opens it: in a ledger pod (MIGRATE_ON_START=false), as the role that may only read and write.
  const database = await openServiceDatabase(LEDGER_DATABASE, config, 'ledger-check', 2);
  try {
    const report = await new Journal().check(database.pool);
    const chains: Reconciliation[] = [];
    if (!process.argv.includes('--books-only')) {
      const nc = await connectNats(config.nats, 'ledger-check');
      try {
        const rpc = new RpcClient(new NatsRpcClient(nc, config.string('eventsNamespace')), config.int('rpcTimeoutMs', 1));
        for (const environment of ENVIRONMENTS) chains.push(await reconcileChains(database.pool, rpc, environment, 30_000));
      } finally {
        await nc.drain();
      }
    }
    const ok =
      report.unbalancedAssets.length === 0 &&
      report.driftedBalances.length === 0 &&
      report.negative.length === 0 &&
      chains.every((chain) => chain.drifts.length === 0 && chain.uncovered.length === 0 && chain.wallets.drifts.length === 0);
    process.stdout.write(`${JSON.stringify({ ok, ...report, chains }, null, 2)}\n`);
    process.exitCode = ok ? 0 : 1;
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`ledger:check failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
