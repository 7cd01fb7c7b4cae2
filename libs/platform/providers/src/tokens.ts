/** Injection tokens of the provider adapters (sandbox today; real adapters are bound here for live keys). */
export const PRICE_FEED = Symbol('PRICE_FEED');
export const BANK_DIRECTORY = Symbol('BANK_DIRECTORY');
export const ROUTE_PROVIDER = Symbol('ROUTE_PROVIDER');
export const ROUTE_RAILS = Symbol('ROUTE_RAILS');
