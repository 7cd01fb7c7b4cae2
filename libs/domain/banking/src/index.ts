export * from './banks';
export * from './nuban';
