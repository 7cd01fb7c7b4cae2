export * from './command';
export * from './decider';
export * from './event-log';
export * from './events';
export * from './migration';
export * from './relay';
