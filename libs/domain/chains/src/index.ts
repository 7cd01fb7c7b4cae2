export * from './addresses';
export * from './parse';
export * from './registry';
export * from './deposits';
export * from './fees';
