export * from './artifacts.generated';
export * from './custody';
export * from './deployment';
export * from './deposit-watcher';
export * from './revert-reason';
export * from './rpc-errors';
export * from './send-queue';
export * from './chain-settings';
