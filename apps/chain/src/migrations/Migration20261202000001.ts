import { Migration } from '@ramp/database';

/**
 * Managed wallets as smart accounts (docs/chains.md, "Smart accounts"): a deposit address is a forwarder (swept into the
 * hot wallet) or a wallet's account (`kind`: its funds stay there), and every operation from an account is one sponsored
 * UserOperation, recorded before it is prepared (chain.account_operations): its terms, the calls it batches, the step's
 * nonce, then the signed operation and its hash, and once final the bundle that carried it.
 */
export class Migration20261202000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table chain.deposit_addresses add column kind text not null default 'forwarder', add constraint deposit_addresses_kind check (kind in ('forwarder', 'account'));`,
    );
    this.addSql(`create index deposit_addresses_accounts on chain.deposit_addresses (chain, address) where kind = 'account';`);
    this.addSql(`
      create table chain.account_operations (
        id bigserial primary key,
        chain text not null,
        idempotency_key text not null,
        kind text not null check (kind in ('transfer', 'swap')),
        wallet_id text not null,
        sender text not null,
        terms jsonb not null,
        calls jsonb not null,
        nonce numeric(78, 0) not null,
        status text not null default 'queued' check (status in ('queued', 'submitted', 'confirmed', 'failed')),
        user_operation_hash text,
        operation jsonb,
        from_block numeric(78, 0),
        submitted_at timestamptz,
        tx_hash text,
        block_number numeric(78, 0),
        block_hash text,
        gas_cost numeric(78, 0),
        amount_out numeric(78, 0),
        error text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (chain, idempotency_key)
      );`);
    this.addSql(`create index account_operations_open on chain.account_operations (chain, id) where status in ('queued', 'submitted');`);
    this.addSql(`create index account_operations_bundles on chain.account_operations (chain, tx_hash) where tx_hash is not null;`);
  }
}
