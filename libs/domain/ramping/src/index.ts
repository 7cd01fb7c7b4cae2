export * from './offramp';
export * from './onramp';
export * from './transaction-view';
export * from './kinds';

export * from './onchain';
export * from './customer';
export * from './collection-match';
export * from './approval';
export * from './screening';
