export * from './log-context';
export * from './metrics';
export * from './timeout';
