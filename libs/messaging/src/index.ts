export * from './connection';
export * from './rpc-client';
export * from './rpc-server';
export * from './outage';
