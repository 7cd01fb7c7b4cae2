import type { Pool } from 'pg';
import { createPublicClient, http, type Address } from 'viem';
import type { ChainSettings } from '@ramp/evm';

/**
 * Where the development database and the local chains it was used with disagree: a database that scanned further than
 * a chain has blocks (the chain was started empty, or is another one), or a hot wallet's (or faucet's) nonce the queue
 * and the chain do not agree on. Either makes the chain service halt its sends; `npm start` says so before it starts,
 * with the one fix (npm run dev:reset). Empty when they agree, or when the database has no chain schema yet.
 */
export async function devStateProblems(pool: Pool, chains: readonly ChainSettings[]): Promise<string[]> {
  const exists = await pool.query(`select 1 from information_schema.tables where table_schema = 'chain' and table_name = 'chain_checkpoints'`);
  if (!exists.rowCount) return [];
  const problems: string[] = [];
  for (const settings of chains.filter((chain) => chain.localPort !== undefined)) {
    const id = `test-${settings.chain}`;
    const client = createPublicClient({ transport: http(settings.rpcUrl, { retryCount: 0, timeout: 5_000 }) });
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const { rows: checkpoints } = await pool.query<{ block_number: string }>(`select block_number from chain.chain_checkpoints where chain = $1`, [id]);
    const scanned = checkpoints[0] ? BigInt(checkpoints[0].block_number) : undefined;
    if (scanned !== undefined && scanned > head) {
      problems.push(
        `${settings.chain}: the database has scanned it to block ${scanned}, but the chain has only ${head} blocks (it was started empty, or is another chain)`,
      );
      continue;
    }
    const { rows: senders } = await pool.query<{ address: Address; next_nonce: string; pending: string }>(
      `select s.address, s.next_nonce::text, (select count(*) from chain.chain_sends p where p.chain = s.chain and p.sender = s.address and p.status = 'pending')::text as pending
         from chain.chain_senders s where s.chain = $1`,
      [id],
    );
    for (const sender of senders) {
      const mined = BigInt(await client.getTransactionCount({ address: sender.address, blockTag: 'latest' }));
      const next = BigInt(sender.next_nonce);
      if (mined > next || mined + BigInt(sender.pending) < next) {
        problems.push(`${settings.chain}: ${sender.address} has ${mined} transactions on the chain, but the database signed ${next}`);
      }
    }
  }
  return problems;
}
