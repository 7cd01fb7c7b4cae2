export * from './settings';
export * from './config';
export * from './reference';
