export * from './transaction-view';
export * from './integration';
export * from './initiation';
export * from './kinds';
export * from './projection';
export * from './initiated';
