#!/usr/bin/env bash
# `npm run stack`: makes sure PostgreSQL, Redis and NATS (JetStream) are running on this machine, starting any that is
# stopped. `stack.sh stop|restart postgres|redis|nats` stops (and starts again) one of them: the chaos test's faults;
# `stack.sh check` says whether it can (all three installed here, as on this project's machines). `stack.sh chains fresh`
# starts the tests' local chains empty (global-setup.js).
source "$(dirname "$0")/lib.sh"
case "${1:-up}" in
  up) ;;
  chains)
    # `stack.sh chains fresh`: the local test chains of TEST_CHAINS (TEST_RUN_CHAINS when unset), started empty.
    export TEST_CHAINS="${TEST_CHAINS:-$TEST_RUN_CHAINS}"
    ensure_chains "${2:-}"
    exit 0
    ;;
  check)
    can_control_stack || fail "PostgreSQL, Redis and NATS are not all installed here (pg_ctlcluster, redis-cli, nats-server): they cannot be stopped and started"
    exit 0
    ;;
  stop | restart)
    case "${2:-}" in
      postgres | redis | nats) "stop_$2" ;;
      *) fail "usage: stack.sh [up | check | stop|restart postgres|redis|nats]" ;;
    esac
    [ "$1" = stop ] && exit 0
    ;;
  *) fail "usage: stack.sh [up | check | chains [fresh] | stop|restart postgres|redis|nats]" ;;
esac
ensure_stack
log "PostgreSQL, Redis and NATS are up"
