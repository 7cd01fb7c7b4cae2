export * from './by-environment';
export * from './bank-directory';
export * from './price-feed';
export * from './routes';
export * from './ramp-rails';
export * from './route-rails';
export * from './tokens';
export * from './partners';
