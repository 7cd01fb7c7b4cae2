// Integration and end-to-end tests run against the real PostgreSQL, NATS and Redis, on a database of their own,
// and against the services compiled from this tree (npm test builds first; a missing build is made here).
const { execSync } = require('child_process');
const fs = require('fs');
const path = require('path');

module.exports = async () => {
  const root = path.resolve(__dirname, '../../..');
  process.env.DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/ramp_platform_test';
  process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL || 'silent';
  // Streams and durable consumers of their own, apart from a developer's running stack on the same NATS (and, with
  // TEST_EVENTS_NAMESPACE and TEST_DATABASE_URL, apart from another checkout's test run on the same machine).
  process.env.EVENTS_NAMESPACE = process.env.TEST_EVENTS_NAMESPACE || 'test';
  // The run's loads move the shared local pools one way (swaps buy ETH, off-ramps CNGN) and nobody arbitrages them back:
  // pools far from the sandbox prices must not refuse the suites' quotes. pool-quotes.e2e-spec.ts tests the tolerance
  // (10%) on chains of its own.
  process.env.POOL_PRICE_TOLERANCE_PERCENT = process.env.POOL_PRICE_TOLERANCE_PERCENT || '100';
  // The largest suites (chaos, production shape) run every service at once beside the chain service: at DB_POOL_MAX 20
  // each, their pools, LISTEN connections and the tests' own pools can ask PostgreSQL for more than its default
  // max_connections (100) allows, and a chaos run once failed on "sorry, too many clients already". 10 each keeps them
  // under it; a step waits for a connection rather than being refused one.
  process.env.DB_POOL_MAX = process.env.DB_POOL_MAX || '10';
  execSync('bash scripts/stack.sh', { cwd: root, stdio: 'inherit' });
  // The local test chains of the run, on ports of their own (never `npm start`'s), started empty: every run begins on
  // fresh chains. TEST_CHAINS, when given, names other nodes (they are restarted empty only if they are local ones).
  process.env.TEST_CHAINS = process.env.TEST_CHAINS || execSync('bash -c \'source scripts/lib.sh >/dev/null; printf %s "$TEST_RUN_CHAINS"\'', { cwd: root, encoding: 'utf8' });
  execSync('bash scripts/stack.sh chains fresh', { cwd: root, stdio: 'inherit' });
  const freshStackModule = path.join(root, 'dist/libs/testing/src/fresh-stack.js');
  if (!fs.existsSync(path.join(root, 'dist/apps/gateway/src/main.js')) || !fs.existsSync(freshStackModule)) {
    execSync('npx tsc -p tsconfig.build.json', { cwd: root, stdio: 'inherit' });
  }
  // Every run starts from nothing: no test database, no stream of the test namespace (see freshStack).
  require(path.join(root, 'tools/register-paths'));
  const { freshStack } = require(freshStackModule);
  await freshStack(process.env.DATABASE_URL, process.env.EVENTS_NAMESPACE);
};
