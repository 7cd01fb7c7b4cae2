export * from './group-writer';
export * from './leader-session';
export * from './orm';
export * from './pool-dialect';
export * from './sql';
export * from './waker';
export * from './recorded-waits';
export { Migration } from '@mikro-orm/migrations';
export * from './access';
