import { Migration } from '@ramp/database';

/**
 * The sandbox generation of wallets and of the transactions read model (POST /sandbox/reset starts a new one for an
 * organization's test environment): reads are scoped by it, so a reset empties the lists while the postings and the
 * event streams stay as they were. A transaction keeps the generation it started in (from its events' tenant), so a
 * rebuild puts every row back where it was.
 */
export class Migration20261125000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table ledger.wallets add column generation integer not null default 0;`);
    this.addSql(`drop index ledger.wallets_tenant;`);
    this.addSql(`create index wallets_tenant on ledger.wallets (organization_id, environment, generation, created_at desc);`);
    this.addSql(`alter table ledger.transactions add column generation integer not null default 0;`);
    this.addSql(`drop index ledger.transactions_tenant_newest;`);
    this.addSql(`create index transactions_tenant_newest on ledger.transactions (organization_id, environment, generation, created_at desc, id desc);`);
  }
}
