#!/usr/bin/env bash
# Shared by the project's scripts: install dependencies, start the local stack, build.
# Everything a fresh machine of this project's kind needs is done here; nothing is assumed to be running.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1

log() { printf '\033[36m[platform]\033[0m %s\n' "$*" >&2; }
fail() { printf '\033[31m[platform] %s\033[0m\n' "$*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

wait_for_port() { # host port name
  for _ in $(seq 1 100); do port_open "$1" "$2" && return 0; sleep 0.2; done
  fail "$3 did not start listening on $1:$2"
}

ensure_dependencies() {
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    # npm install --no-save, not npm ci: see .ci/run for why (the lock lacks other platforms' optional bindings).
    log "installing npm dependencies from package-lock.json"
    npm install --no-save --no-audit --no-fund --loglevel=error >&2 || fail "npm install failed: is the npm registry reachable?"
  fi
}

ensure_postgres() {
  if port_open 127.0.0.1 5432; then return 0; fi
  command -v pg_ctlcluster >/dev/null 2>&1 || fail "PostgreSQL is not running on 127.0.0.1:5432 and is not installed here. Install it (apt-get install postgresql) or run the whole stack with 'docker compose up'."
  log "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start >&2 || fail "PostgreSQL failed to start"
  wait_for_port 127.0.0.1 5432 PostgreSQL
}

ensure_redis() {
  if port_open 127.0.0.1 6379; then return 0; fi
  command -v redis-server >/dev/null 2>&1 || fail "Redis is not running on 127.0.0.1:6379 and is not installed here. Install it (apt-get install redis-server) or use 'docker compose up'."
  log "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log >&2 || fail "Redis failed to start"
  wait_for_port 127.0.0.1 6379 Redis
}

ensure_nats() {
  if port_open 127.0.0.1 4222; then return 0; fi
  [ -x /usr/sbin/nats-server ] || command -v nats-server >/dev/null 2>&1 || fail "NATS is not running on 127.0.0.1:4222 and is not installed here. Install it (apt-get install nats-server) or use 'docker compose up'."
  log "starting NATS with JetStream"
  mkdir -p /var/lib/nats-server
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log >&2 || fail "NATS failed to start"
  wait_for_port 127.0.0.1 4222 NATS
}

ensure_stack() {
  ensure_postgres
  ensure_redis
  ensure_nats
}

# The local test chains (TEST_CHAINS entries with a localPort): one anvil node each, from the pinned npm package, started
# when nothing listens on its port yet and left running like the other services. `persist` keeps each chain's state in
# .local/chains/<chain>.json (npm start: balances and contracts survive a restart); without it a node starts empty.
# `fresh` stops the anvil node on each port first, so that every run starts from empty chains (the tests, on ports of
# their own: TEST_RUN_CHAINS); `reset` stops it, deletes its saved state and starts it persisting afresh (dev:reset).
# Tests that need a chain of their own (reorgs, outages) start their own nodes on free ports (libs/testing AnvilNode).
ANVIL="$ROOT/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil"
# The tests' chains: the defaults on other ports, so that a test run never touches the chains of `npm start`.
TEST_RUN_CHAINS='{"base":{"rpcUrl":"http://127.0.0.1:18545","localPort":18545,"bundlerUrl":"http://127.0.0.1:14337","localBundlerPort":14337},"bsc":{"rpcUrl":"http://127.0.0.1:18546","localPort":18546,"bundlerUrl":"http://127.0.0.1:14338","localBundlerPort":14338},"arbitrum":{"rpcUrl":"http://127.0.0.1:18547","localPort":18547}}'
ensure_chains() { # [persist | fresh | reset]
  [ -x "$ANVIL" ] || fail "anvil is missing: npm install puts it in node_modules/@foundry-rs/anvil-linux-amd64"
  local chains
  chains="$(node tools/run.js tools/chains)" || fail "TEST_CHAINS is not valid (see docs/configuration.md)"
  mkdir -p .local/chains
  while read -r chain port chain_id bundler_port; do
    [ -n "$chain" ] || continue
    # A chain's bundler goes with its node: a node started afresh needs its EntryPoint again, and alto its state.
    if { [ "${1:-}" = fresh ] || [ "${1:-}" = reset ]; } && [ "$bundler_port" != - ] && port_open 127.0.0.1 "$bundler_port"; then
      pkill -f -- "alto.js --port $bundler_port " || fail "127.0.0.1:$bundler_port is taken by something other than a bundler of this project"
      wait_for_port_closed 127.0.0.1 "$bundler_port" "the $chain bundler"
    fi
    if { [ "${1:-}" = fresh ] || [ "${1:-}" = reset ]; } && port_open 127.0.0.1 "$port"; then
      pkill -f -- "bin/anvil --host 127.0.0.1 --port $port " || fail "127.0.0.1:$port is taken by something other than an anvil node of this project"
      wait_for_port_closed 127.0.0.1 "$port" "anvil ($chain)"
    fi
    [ "${1:-}" = reset ] && rm -f ".local/chains/$chain.json"
    port_open 127.0.0.1 "$port" && continue
    local state=()
    { [ "${1:-}" = persist ] || [ "${1:-}" = reset ]; } && state=(--state ".local/chains/$chain.json" --state-interval 10)
    log "starting the local $chain chain (anvil, chain id $chain_id) on 127.0.0.1:$port"
    nohup "$ANVIL" --host 127.0.0.1 --port "$port" --chain-id "$chain_id" --silent "${state[@]}" >".local/chains/$chain.log" 2>&1 &
    disown
    wait_for_port 127.0.0.1 "$port" "anvil ($chain)"
  done <<<"$chains"
  # The local ERC-4337 bundlers (@pimlico/alto, TEST_CHAINS entries with a localBundlerPort) beside their nodes.
  node tools/run.js tools/local-bundlers || fail "a local bundler did not start (see .local/chains/<chain>-bundler.log)"
}

wait_for_port_closed() { # host port name
  for _ in $(seq 1 150); do port_open "$1" "$2" || return 0; sleep 0.2; done
  fail "$3 still listens on $1:$2"
}

can_control_stack() {
  command -v pg_ctlcluster >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 && [ -x /usr/sbin/nats-server ] &&
    command -v start-stop-daemon >/dev/null 2>&1
}

# Stopping is for the chaos test (npm run test:chaos), which restarts the local stack under load. PostgreSQL stops in
# immediate mode, as in a crash: no checkpoint, and unflushed asynchronous commits are lost.
stop_postgres() {
  command -v pg_ctlcluster >/dev/null 2>&1 || fail "only a PostgreSQL managed by pg_ctlcluster can be stopped here"
  log "stopping PostgreSQL (immediate)"
  pg_ctlcluster --skip-systemctl-redirect --mode immediate "$(ls /etc/postgresql | head -n1)" main stop >&2 || fail "PostgreSQL did not stop"
  wait_for_port_closed 127.0.0.1 5432 PostgreSQL
}

stop_redis() {
  log "stopping Redis"
  redis-cli -h 127.0.0.1 -p 6379 shutdown nosave >/dev/null 2>&1 || true
  wait_for_port_closed 127.0.0.1 6379 Redis
}

stop_nats() {
  log "stopping NATS"
  start-stop-daemon --stop --oknodo --retry 10 --exec /usr/sbin/nats-server >&2 || fail "NATS did not stop"
  wait_for_port_closed 127.0.0.1 4222 NATS
}

build() {
  log "compiling TypeScript"
  npx tsc -p tsconfig.build.json || fail "the build failed"
}

APPS=(chain quote ramp swap-transfer ledger notifier gateway)
