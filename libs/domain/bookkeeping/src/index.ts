export * from './journal';
export * from './smart-account';
