import { Migration } from '@ramp/database';

/**
 * What each send is for, in a column of its own (`kind`) instead of read from its key's prefix with `like`: a sweep of a
 * deposit address, a transfer, a swap, an approval of a spender, a send of the intent bridge, a faucet transfer, or the
 * relayer's inventory minted by the faucet. Every send the chain service queued before carries it in its key
 * (`sweep:`, `transfer:`, `swap:`, `approve:`, `bridge:`, `faucet:inventory:`, `faucet:`), so existing rows take it
 * from there. The column is required: a replica still on the code before this migration cannot queue a send without
 * it (its request fails and is retried) rather than queue one that the checks on `kind` would not see.
 */
export class Migration20261129000002 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table chain.chain_sends add column kind text;`);
    this.addSql(`
      update chain.chain_sends set kind = case
          when idempotency_key like 'sweep:%' then 'sweep'
          when idempotency_key like 'transfer:%' then 'transfer'
          when idempotency_key like 'swap:%' then 'swap'
          when idempotency_key like 'approve:%' then 'approve'
          when idempotency_key like 'bridge:%' then 'bridge'
          when idempotency_key like 'faucet:inventory:%' then 'inventory'
          when idempotency_key like 'faucet:%' then 'faucet'
        end;`);
    this.addSql(`
      alter table chain.chain_sends
        alter column kind set not null,
        add constraint chain_sends_kind check (kind in ('sweep', 'transfer', 'swap', 'approve', 'bridge', 'faucet', 'inventory'));`);
  }
}
