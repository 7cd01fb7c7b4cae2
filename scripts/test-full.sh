#!/usr/bin/env bash
# `npm run test:chaos` and `npm run test:fuzz`: the full runs of the chaos and fuzz tests that `npm test` runs reduced.
#   test:chaos  three rounds of faults (every service killed, NATS and PostgreSQL restarted, Redis stopped) under a
#               twice larger load (CHAOS_PROFILE=full)
#   test:fuzz   FUZZ_RUNS (default 300) hostile requests per kind of case and route, and the cross-tenant test;
#               FUZZ_SEED replays a run
source "$(dirname "$0")/lib.sh"
ensure_dependencies
ensure_stack
build
case "${1:-}" in
  chaos) export CHAOS_PROFILE=full; specs=apps/platform-e2e/src/chaos ;;
  fuzz) export FUZZ_RUNS="${FUZZ_RUNS:-300}"; specs=apps/gateway/src/fuzz ;;
  *) fail "usage: test-full.sh chaos|fuzz" ;;
esac
npx jest --selectProjects integration --ci --runInBand "$specs" || fail "$1 failed"
