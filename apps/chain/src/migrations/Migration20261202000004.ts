import { Migration } from '@ramp/database';

/**
 * A managed wallet's operation records the organization whose transaction it is, so that what the paymaster sponsored
 * for an organization in the last 24 hours can be summed against its budget (CHAIN_SPONSORED_GAS_BUDGETS).
 */
export class Migration20261202000004 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table chain.account_operations add column organization_id text;`);
    this.addSql(
      `create index account_operations_organization on chain.account_operations (chain, organization_id, created_at) where organization_id is not null;`,
    );
  }
}
