export * from './addresses';
export * from './events';
export * from './schedule';
export * from './signature';
export * from './target';
