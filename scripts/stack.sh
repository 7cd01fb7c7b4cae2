#!/usr/bin/env bash
# Makes sure PostgreSQL, Redis and NATS (JetStream) are running on this machine, starting any that is stopped.
source "$(dirname "$0")/lib.sh"
ensure_stack
log "PostgreSQL, Redis and NATS are up"
