export * from './offramp';
export * from './transaction-view';
