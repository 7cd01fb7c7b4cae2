/** Injection tokens of the shared service plumbing. */
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');
export const LOGGER = Symbol('LOGGER');
export const SERVICE_NAME = Symbol('SERVICE_NAME');
/**
 * The service's one `pg` Pool (DatabaseModule), for the plain SQL of the event log, the ledger, jobs and projections;
 * MikroORM runs on the same connections.
 */
export const PG_POOL = Symbol('PG_POOL');
/** The service's ServiceDatabase: the pool and MikroORM on it (DatabaseModule). */
export const SERVICE_DATABASE = Symbol('SERVICE_DATABASE');
