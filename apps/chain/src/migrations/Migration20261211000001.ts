import { APPLICATION_ROLE, Migration } from '@ramp/database';

/**
 * The contracts' pins are a record, like the event log: what an operator confirmed of a live chain's contracts, and
 * when, stays as it was written. Triggers refuse UPDATE, DELETE and TRUNCATE on chain.contract_pins for every role, and
 * the services' role may only read and append to it (chain:deploy appends a run's pins; the chain service reads the
 * latest of each contract).
 */
export class Migration20261211000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function chain.refuse_pin_change() returns trigger language plpgsql as $$
      begin
        raise exception 'the contracts'' pins are append-only: % on %.% is refused', tg_op, tg_table_schema, tg_table_name
          using errcode = 'insufficient_privilege';
      end $$;`);
    this.addSql(
      `create trigger contract_pins_append_only before update or delete on chain.contract_pins for each row execute function chain.refuse_pin_change();`,
    );
    this.addSql(
      `create trigger contract_pins_no_truncate before truncate on chain.contract_pins for each statement execute function chain.refuse_pin_change();`,
    );
    this.addSql(`revoke update, delete, truncate on chain.contract_pins from ${APPLICATION_ROLE};`);
  }
}
