import { Migration } from '@ramp/database';

/**
 * Every send that spends a chain's hot wallet, with what it pays out (the transaction whose hold or ledger entry it
 * settles, or the deposit a refund gives back), its token, amount, organization and when: the record that ties each
 * outgoing send to the books, and what the outflow limits (CHAIN_OUTFLOW_LIMITS) judge over the last hour (`counted`:
 * the sends that leave for the outside). One row per send, written in the transaction that queues it.
 */
export class Migration20261129000005 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table chain.outflows (
        chain text not null,
        send_key text not null,
        token_symbol text not null,
        amount numeric not null check (amount > 0),
        organization_id text,
        pays_out text not null,
        counted boolean not null,
        created_at timestamptz not null default now(),
        primary key (chain, send_key)
      );`);
    this.addSql(`create index outflows_recent on chain.outflows (chain, token_symbol, created_at) where counted;`);
    this.addSql(`create index outflows_pays_out on chain.outflows (pays_out);`);
  }
}
