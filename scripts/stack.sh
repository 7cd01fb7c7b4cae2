#!/usr/bin/env bash
# `npm run stack`: makes sure PostgreSQL, Redis and NATS (JetStream) are running on this machine, starting any that is
# stopped. `stack.sh stop|restart postgres|redis|nats` stops (and starts again) one of them: the chaos test's faults.
source "$(dirname "$0")/lib.sh"
case "${1:-up}" in
  up) ;;
  stop | restart)
    case "${2:-}" in
      postgres | redis | nats) "stop_$2" ;;
      *) fail "usage: stack.sh [up | stop|restart postgres|redis|nats]" ;;
    esac
    [ "$1" = stop ] && exit 0
    ;;
  *) fail "usage: stack.sh [up | stop|restart postgres|redis|nats]" ;;
esac
ensure_stack
log "PostgreSQL, Redis and NATS are up"
