#!/usr/bin/env bash
# `npm run bench:events`: appends, projection rebuild and off-ramp latency, each beside a baseline, in one run.
source "$(dirname "$0")/lib.sh"
ensure_dependencies
ensure_stack
build
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/ramp_platform_bench}"
node -r ./tools/register-paths.js dist/tools/bench/events-bench.js
