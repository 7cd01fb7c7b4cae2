import { Migration } from '@ramp/database';

/**
 * The contracts of a live chain as `npm run chain:deploy` recorded them, each pinned by the hash of its code: the chain
 * service runs a live chain only while every contract it names has its latest record here and that code. One row per
 * contract per run, never updated: who deployed or confirmed what, when, stays readable.
 */
export class Migration20261210000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table chain.contract_pins (
      id bigserial primary key,
      chain text not null,
      name text not null,
      address text not null,
      code_hash text not null,
      deployed boolean not null,
      transaction_hash text,
      deployer text not null,
      operator text not null,
      recorded_at timestamptz not null default now()
    );`);
    this.addSql(`create index contract_pins_chain_name on chain.contract_pins (chain, name, id desc);`);
  }
}
