export * from './decimal';
export * from './amount';
export * from './base-units';
