export * from './errors/app-error';
export * from './errors/envelope';
export * from './rpc/tenant';
export * from './rpc/rpc';
export * from './quotes/quotes';
export * from './ids';
export * from './wallets/wallets';
export * from './ramp/ramp';
