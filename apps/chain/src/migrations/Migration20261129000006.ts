import { Migration } from '@ramp/database';

/**
 * One sweep per deposit address after a short delay instead of one per deposit: the sweeps scheduled
 * (chain.sweeps_due, one row per address at most) and the sweeps queued with the address each empties (chain.sweeps,
 * which the reconciliation reads to know which addresses may still hold funds). The sweeps of the old keys
 * (`sweep:<deposit id>[:<credit>]`) are recorded with their deposit's address.
 */
export class Migration20261129000006 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table chain.sweeps_due (
        chain text not null,
        address text not null,
        owner text not null,
        due_at timestamptz not null,
        primary key (chain, address)
      );`);
    this.addSql(`create index sweeps_due_at on chain.sweeps_due (chain, due_at);`);
    this.addSql(`
      create table chain.sweeps (
        chain text not null,
        send_key text not null,
        address text not null,
        primary key (chain, send_key)
      );`);
    this.addSql(`create index sweeps_of_address on chain.sweeps (chain, address);`);
    this.addSql(`
      insert into chain.sweeps (chain, send_key, address)
      select distinct s.chain, s.idempotency_key, d.to_address
        from chain.chain_sends s
        join chain.chain_deposits d on d.chain = s.chain
         and (s.idempotency_key = 'sweep:' || replace(d.chain, '-', ':') || ':' || d.tx_hash || ':' || d.log_index
              or s.idempotency_key like 'sweep:' || replace(d.chain, '-', ':') || ':' || d.tx_hash || ':' || d.log_index || ':%')
       where s.kind = 'sweep'
      on conflict do nothing;`);
  }
}
