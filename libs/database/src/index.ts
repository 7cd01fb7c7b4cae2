export * from './group-writer';
export * from './orm';
export { Migration } from '@mikro-orm/migrations';
