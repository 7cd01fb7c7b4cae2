export * from './journal';
export * from './smart-account';
export * from './custody';
