export * from './api-key';
export * from './entities';
export * from './ip-allowlist';
export * from './key-cache';
export * from './key-store';
export * from './secret-box';
