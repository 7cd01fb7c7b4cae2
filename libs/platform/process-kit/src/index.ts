export * from './jobs';
export * from './job-worker';
export * from './ledger-steps';
export * from './quote-initiation';
export * from './integration-message';
export * from './service-events';
export * from './stream-process';
export * from './process-providers';
