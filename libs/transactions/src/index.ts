export * from './transaction-view';
export * from './integration';
export * from './projection';
