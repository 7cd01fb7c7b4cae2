export * from './jobs';
export * from './job-worker';
export * from './request-fields';
export * from './integration-message';
export * from './service-events';
export * from './stream-process';
export * from './process-providers';
