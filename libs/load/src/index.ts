export * from './mixed-load';
