/**
 * Injection tokens of the provider adapters that have no live counterpart yet. The others are injected by their
 * per-environment class (BankDirectories, PriceFeeds, RouteProviders: ByEnvironment), which refuses a live key without
 * a live adapter.
 */
export const ROUTE_RAILS = Symbol('ROUTE_RAILS');
