/**
 * The database of an integration test's run, as global-setup.js sets it (TEST_DATABASE_URL keeps two checkouts' runs
 * apart); the fallback is its default. The specs of the platform libraries this one builds on (database, event-store)
 * keep their own: importing it would make a cycle.
 */
export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ramp_platform_test';
