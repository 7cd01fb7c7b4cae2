import { Migration } from '@ramp/database';

/**
 * Organization names unique regardless of case: "Acme Ltd" and "ACME LTD" are one organization, so creating the second
 * is refused instead of splitting one customer in two (or, as before, silently joining whoever took the name first).
 * The index on lower(name) replaces the exact-name constraint, which it implies; INSERT … ON CONFLICT names it.
 */
export class Migration20261124000001 extends Migration {
  override async up(): Promise<void> {
    // Names that already differ only in case cannot be merged by a migration: say which, so an operator renames them.
    this.addSql(`
      do $$
      declare clashes text;
      begin
        select string_agg(names, '; ') into clashes from (
          select string_agg(format('%s (%s)', name, id), ', ' order by created_at) as names
            from gateway.organizations group by lower(name) having count(*) > 1
        ) as clashing;
        if clashes is not null then
          raise exception 'organization names must be unique regardless of case; rename all but one of each: %', clashes;
        end if;
      end $$;`);
    this.addSql(`create unique index organizations_name_lower_key on gateway.organizations (lower(name));`);
    this.addSql(`alter table gateway.organizations drop constraint organizations_name_key;`);
  }
}
