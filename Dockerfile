# One recipe for every service of the platform; APP names a folder of apps/:
#   docker build --build-arg APP=gateway -t ramp-platform/gateway .
# The build and prod-deps stages do not depend on APP, so the six images share them and the workspace is compiled once.
# No HEALTHCHECK: Kubernetes and docker-compose.yml probe /health/live and /health/ready themselves.

# The current Node.js LTS (24, "Krypton"), pinned to a release: Node 20 reached its end of life in April 2026. The
# code runs on both (CI runs the tests on the machines' Node 20; `npm run test:lts` runs them on this release).
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# Compiles the whole workspace (apps and libs) to dist/ with the same command as `npm run build`.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No dependency needs its install script to compile or to run (they are nx tooling and telemetry).
# npm install --no-save rather than npm ci: a lock written where the registry serves only one platform's optional bindings
# lacks the others, which npm ci refuses (see .ci/run);
# every version is pinned, so the tree is the lock's.
RUN npm install --no-save --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsconfig.build.json ./
COPY apps ./apps
COPY libs ./libs
COPY tools ./tools
RUN npx tsc -p tsconfig.build.json

# The dependencies the services need at run time, without the compiler, jest, nx and eslint.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-save --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
# The services never run npm, yarn or corepack: leaving them out removes code (and advisories) from the image.
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
      /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-* \
  && groupadd --gid 10001 ramp \
  && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --no-log-init ramp
WORKDIR /app
# Owned by root and read-only for the service user. Every app's compiled code is kept (not only APP's): it is about a
# megabyte, and it lets one container apply every service's migrations (see the migrate service of docker-compose.yml).
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist/apps ./dist/apps
COPY --from=build /app/dist/libs ./dist/libs
COPY tools/register-paths.js ./tools/register-paths.js
COPY package.json ./
ENV NODE_ENV=production \
    HOST=0.0.0.0

# Declared this late so that everything above is shared by the six images.
ARG APP
RUN if [ -z "${APP}" ]; then echo 'build with --build-arg APP=<gateway|quote|ramp|swap-transfer|ledger|notifier>' >&2; exit 1; fi; \
    if [ ! -f "dist/apps/${APP}/src/main.js" ]; then echo "APP=${APP} is not a folder of apps/" >&2; exit 1; fi
ENV APP=${APP}
LABEL org.opencontainers.image.title="ramp-platform ${APP}"

USER 10001:10001
# `exec` replaces the shell, so node is PID 1 and receives SIGTERM itself (the services stop within 10 s).
# Arguments are passed on to main.js: `docker run IMAGE migrate` (or Kubernetes `args: [migrate]`) applies the
# service's migrations and exits. A distroless NODE_IMAGE would need another entry point: this one uses /bin/sh.
ENTRYPOINT ["/bin/sh", "-c", "exec node -r ./tools/register-paths.js \"dist/apps/${APP}/src/main.js\" \"$@\"", "sh"]
CMD []
