export * from './bootstrap';
export * from './core.module';
export * from './database.providers';
export * from './health';
export * from './logger';
export * from './rpc-handler';
export * from './tokens';
