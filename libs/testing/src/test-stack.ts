import type { EventMetadata } from '@ramp/event-store';

/**
 * Where an integration test finds the stack: the run's database, NATS and events namespace, as global-setup.js sets
 * them (TEST_DATABASE_URL and TEST_EVENTS_NAMESPACE keep two checkouts' runs apart); the fallbacks are its defaults.
 */
export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ramp_platform_test';
export const TEST_NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
export const TEST_NAMESPACE = process.env.EVENTS_NAMESPACE ?? 'test';

/** The metadata of an event appended by a test: a test tenant's, with fixed correlation and causation ids. */
export const TEST_EVENT_METADATA: EventMetadata = {
  correlationId: 'corr',
  causationId: 'cause',
  actor: 'test',
  tenant: { organizationId: 'org_test', environment: 'test', keyId: 'key_test' },
};
