export * from './addresses';
export * from './parse';
export * from './registry';
