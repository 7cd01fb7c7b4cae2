import { Migration } from '@ramp/database';

/**
 * Wallets on real chains: a wallet's address is its deposit address from the chain service (`onchain`), and each
 * deposit the chain service credited to a wallet is recorded once, by its deposit id, beside its journal entry (the
 * transaction hash answers "was this transfer credited yet?"). Wallets made before keep their simulated addresses.
 */
export class Migration20261127000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table ledger.wallets add column onchain boolean not null default false;`);
    this.addSql(`
      create table ledger.chain_deposits (
        deposit_id text primary key,
        wallet_id text not null references ledger.wallets (id),
        transaction_hash text not null,
        token_symbol text not null,
        amount numeric not null check (amount > 0),
        credited_at timestamptz not null default now()
      );`);
    this.addSql(`create index chain_deposits_transaction on ledger.chain_deposits (transaction_hash);`);
  }
}
