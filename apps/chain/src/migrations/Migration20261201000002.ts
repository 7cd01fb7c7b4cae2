import { Migration } from '@ramp/database';

/**
 * Netted settlements (docs/chains.md, "Netted settlements"): a transfer asked with `net` is recorded without a send of
 * its own (`netted`), and the leader's netting sends those waiting for the same address, token and account as one
 * transfer, whose key each of them then carries (`net_send_key`). The waiting ones are found by a partial index, the
 * settlements of a netted send by another.
 */
export class Migration20261201000002 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table chain.transfers add column netted boolean not null default false, add column net_send_key text;`);
    this.addSql(
      `create index transfers_netting on chain.transfers (chain, to_address, token_symbol, account, created_at) where netted and net_send_key is null;`,
    );
    this.addSql(`create index transfers_net_send on chain.transfers (chain, net_send_key) where net_send_key is not null;`);
  }
}
