import { Migration } from '@ramp/database';
import { eventStoreMigration } from '@ramp/event-store';
import { depositWatcherMigration, sendQueueMigration } from '@ramp/evm';

/**
 * The chain service's tables: its event log (deposits credited, reported to the ledger and the ramp through the relay),
 * the durable send queue of every hot wallet and faucet, and the deposit watcher of every chain.
 */
export class Migration20261124000001 extends Migration {
  override async up(): Promise<void> {
    for (const statement of eventStoreMigration('chain')) this.addSql(`${statement};`);
    for (const statement of sendQueueMigration('chain')) this.addSql(`${statement};`);
    for (const statement of depositWatcherMigration('chain')) this.addSql(`${statement};`);
    // Whose each deposit address is (the watcher's chain_watched knows only the owner): the tenant that asked for it,
    // carried into the metadata of its deposits' events.
    this.addSql(`
      create table chain.deposit_addresses (
        chain text not null,
        address text not null,
        owner text not null,
        tenant jsonb not null,
        created_at timestamptz not null default now(),
        primary key (chain, address)
      );`);
  }
}
