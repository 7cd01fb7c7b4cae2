import { Migration } from '@ramp/database';

/**
 * The intent bridge's deposits (ChainBridge), one row per bridge (its key unique across chains, so that a fill's send,
 * keyed by it on the destination chain, is one bridge's), moved along by the relayer: the
 * deposit's send, its id in the source pool once confirmed, then the fill on the destination chain and the repayment,
 * or the refund after an unfilled deadline. A status changes only from the one it was read in (compare-and-set), so a
 * deposit is either filled or refunded, never both. And the sandbox's relayer switch, per organization.
 */
export class Migration20261126000004 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table chain.bridges (
        from_chain text not null,
        key text not null,
        to_chain text not null,
        organization_id text not null,
        token text not null,
        amount_in numeric not null check (amount_in > 0),
        amount_out numeric not null check (amount_out > 0),
        recipient text not null,
        account text not null,
        fill_deadline bigint not null,
        deposit_id numeric,
        refund_attempts integer not null default 0,
        status text not null default 'depositing'
          check (status in ('depositing', 'deposited', 'filling', 'filled', 'unfilled', 'settling', 'settled', 'refunding', 'refunded', 'failed', 'stuck')),
        error text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        primary key (key)
      );`);
    this.addSql(`create index bridges_open_by_destination on chain.bridges (to_chain) where status = 'deposited';`);
    this.addSql(`create index bridges_open_by_source on chain.bridges (from_chain) where status in ('deposited', 'filled', 'unfilled');`);
    this.addSql(`
      create table chain.relayer_pauses (
        environment text not null,
        organization_id text not null,
        created_at timestamptz not null default now(),
        primary key (environment, organization_id)
      );`);
  }
}
