export * from './gcra';
export * from './redis-rate-limiter';
