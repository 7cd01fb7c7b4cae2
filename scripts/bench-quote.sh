#!/usr/bin/env bash
# `npm run bench:quote`: the quote path through the whole stack beside a bare Fastify endpoint, in one run.
source "$(dirname "$0")/lib.sh"
ensure_dependencies
ensure_stack
build
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/ramp_platform_bench}"
node -r ./tools/register-paths.js dist/tools/bench/quote-bench.js
