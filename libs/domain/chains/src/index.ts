export * from './addresses';
export * from './parse';
export * from './registry';
export * from './deposits';
export * from './fees';
export * from './faucet';
export * from './settlement';
export * from './intent-bridge';
