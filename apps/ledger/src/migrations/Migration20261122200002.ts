import { Migration } from '@ramp/database';

/**
 * The transactions read model: one row per transaction of any service, projected from their JetStream event streams
 * (never from their tables): the folded state and stream version to apply the next event, the Transaction as the
 * API shows it, and the columns GET /transactions filters and sorts on.
 */
export class Migration20261122200002 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table ledger.transactions (
        id text primary key,
        organization_id text not null,
        environment text not null,
        type text not null,
        status text not null,
        chain text not null,
        wallet_id text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        stream_version integer not null,
        state jsonb not null,
        view jsonb not null
      );`);
    this.addSql(`create index transactions_tenant_newest on ledger.transactions (organization_id, environment, created_at desc, id desc);`);
    this.addSql(`create index transactions_wallet on ledger.transactions (wallet_id) where wallet_id is not null;`);
  }
}
