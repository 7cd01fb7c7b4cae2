import { Migration } from '@ramp/database';

/**
 * The sandbox generation a webhook was registered in (POST /sandbox/reset starts a new one): the registry shows only
 * the caller's generation, and an event reaches only the webhooks of the generation its transaction started in.
 */
export class Migration20261125000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table notifier.webhooks add column generation integer not null default 0;`);
    this.addSql(`drop index notifier.webhooks_of_tenant;`);
    this.addSql(`create index webhooks_of_tenant on notifier.webhooks (organization_id, environment, generation) where deleted_at is null;`);
  }
}
