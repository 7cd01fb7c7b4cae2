export * from './circuit-breaker';
export * from './partner-bank-directory';
export * from './partner-http';
export * from './partners-config';
export * from './paystack';
export * from './payouts';
export * from './flutterwave';
export * from './collections';
