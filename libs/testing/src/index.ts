export * from './http';
export * from './keys';
export * from './paths';
export * from './services';
export * from './expectations';
export * from './integration-events';
export * from './webhook-receiver';
export * from './asyncapi-document';
