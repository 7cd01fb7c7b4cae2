/** Injection tokens of the shared service plumbing. */
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');
export const LOGGER = Symbol('LOGGER');
export const SERVICE_NAME = Symbol('SERVICE_NAME');
/** A plain `pg` Pool on the service's database, for the SQL of the event log, the ledger and projections. */
export const PG_POOL = Symbol('PG_POOL');
