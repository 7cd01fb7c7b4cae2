#!/usr/bin/env bash
# `npm run dev:reset`: the development database and the local chains started afresh together (stop `npm start` first).
# What it deletes is development data only: the database of DATABASE_URL on this machine, its event streams, and the
# local chains' state in .local/chains. The next `npm start` deploys the platform's contracts and seeds the pools again.
source "$(dirname "$0")/lib.sh"
ensure_dependencies
ensure_stack
build
node tools/run.js tools/dev-reset || fail "dev:reset did not reset the database"
ensure_chains reset
log "reset: run npm start"
