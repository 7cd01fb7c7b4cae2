export * from './bootstrap';
export * from './core.module';
export * from './database.providers';
export * from './health';
export * from './jetstream.providers';
export * from './logger';
export * from './tokens';
export * from './expiring';
