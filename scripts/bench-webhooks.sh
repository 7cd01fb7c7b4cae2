#!/usr/bin/env bash
# `npm run bench:webhooks`: signed deliveries per second and commit-to-delivery latency, each beside a baseline.
source "$(dirname "$0")/lib.sh"
ensure_dependencies
ensure_stack
build
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/ramp_platform_bench}"
node -r ./tools/register-paths.js dist/tools/bench/webhooks-bench.js
