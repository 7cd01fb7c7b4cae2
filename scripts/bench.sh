#!/usr/bin/env bash
# `npm run bench` (all: every benchmark on a fresh stack, written to docs/benchmarks.md) and `npm run bench:<name>`
# (one of them, printed): each figure beside a baseline measured in the same run; `npm run profile`: bench:memory's load
# profiled, written to docs/profiles/. Database ramp_platform_bench and the
# `bench` stream namespace, apart from the tests' and a developer's running stack.
source "$(dirname "$0")/lib.sh"
case "${1:-}" in
  all) script=dist/tools/bench/all.js ;;
  profile) script=dist/tools/bench/profile.js ;;
  quote | events | webhooks | memory | chain) script="dist/tools/bench/$1-bench.js" ;;
  *) fail "usage: bench.sh all|profile|quote|events|webhooks|memory|chain" ;;
esac
ensure_dependencies
ensure_stack
build
ensure_chains
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/ramp_platform_bench}"
# Its loads move the local pools one way, and nobody arbitrages them back: a pool far from the sandbox prices must not
# refuse its quotes (POOL_PRICE_TOLERANCE_PERCENT is judged by pool-quotes.e2e-spec.ts).
export POOL_PRICE_TOLERANCE_PERCENT="${POOL_PRICE_TOLERANCE_PERCENT:-100}"
# One benchmark alone starts from a fresh bench database too (all.js makes its own): the local chains may have been
# restarted empty since the last run, and a database that remembers them ahead (a watcher's checkpoint, a deployed
# contract) would never credit its deposits.
if [ "$1" != all ]; then
  node -r ./tools/register-paths.js -e "require('./dist/libs/testing/src/fresh-stack').freshStack(process.env.DATABASE_URL, 'bench').catch((error) => { console.error(error); process.exit(1); })" ||
    fail "the bench database could not be reset"
fi
node -r ./tools/register-paths.js "$script"
