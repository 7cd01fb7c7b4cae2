#!/usr/bin/env bash
# `npm test`: every test. Unit tests, then lint and type checks, then integration and end-to-end tests against the
# real PostgreSQL, NATS and Redis (started here if stopped) and the services built from this tree.
source "$(dirname "$0")/lib.sh"
ensure_dependencies
ensure_stack
build
# The integration tests' local chains start empty in their global setup (libs/testing/src/global-setup.js).
log "lint"
NX_DAEMON=false npx nx show projects >/dev/null || fail "nx could not read the workspace"
npx eslint --max-warnings 0 apps libs tools examples || fail "lint failed"
npx prettier --check --log-level warn '{apps,libs,tools}/**/*.ts' || fail "formatting differs from Prettier's: npm run format"
log "type check (including tests)"
npx tsc -p tsconfig.json --noEmit || fail "type check failed"
log "unit tests"
npx jest --selectProjects unit --ci || fail "unit tests failed"
log "integration and end-to-end tests"
# No --forceExit: a connection left open after a test is a shutdown defect to fix (the gateway's Redis client was one).
npx jest --selectProjects integration --ci --runInBand || fail "integration tests failed"
