#!/usr/bin/env bash
# Applies every service's migrations (each service also applies its own at start-up, under an advisory lock).
source "$(dirname "$0")/lib.sh"
ensure_dependencies
ensure_postgres
build
for app in "${APPS[@]}"; do
  node -r ./tools/register-paths.js "dist/apps/$app/src/main.js" migrate || fail "migrations of $app failed"
done
