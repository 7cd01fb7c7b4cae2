export * from './banks';
export * from './nuban';
export * from './payouts';
