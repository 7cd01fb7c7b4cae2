#!/usr/bin/env bash
# `npm start`: installs what is missing, starts PostgreSQL, Redis and NATS if stopped, migrates, and runs all six
# services in development mode (plain HTTP on loopback, sandbox providers). Ctrl-C stops everything.
source "$(dirname "$0")/lib.sh"
ensure_dependencies
ensure_stack
build
ensure_chains persist
export NODE_ENV="${NODE_ENV:-development}"
for app in "${APPS[@]}"; do
  node -r ./tools/register-paths.js "dist/apps/$app/src/main.js" migrate >/dev/null || fail "migrations of $app failed"
done
# The development database against the local chains it was used with: one message and the fix when they disagree
# (a chain started empty under an old database), rather than a chain service that halts its sends.
node tools/run.js tools/dev-check || exit 1

pids=()
stop() {
  trap - INT TERM
  log "stopping services"
  kill -TERM "${pids[@]}" 2>/dev/null
  wait "${pids[@]}" 2>/dev/null
  exit 0
}
trap stop INT TERM

for app in "${APPS[@]}"; do
  node -r ./tools/register-paths.js "dist/apps/$app/src/main.js" > >(sed -u "s/^/[$app] /") 2>&1 &
  pids+=($!)
done
log "gateway: http://127.0.0.1:${PORT:-3000}/v1  (docs: http://127.0.0.1:${PORT:-3000}/v1/docs)"
log "create a test key:  npm run keys -- create --org \"Acme Ltd\" --env test"
wait -n "${pids[@]}"
log "a service exited; stopping the others"
stop
