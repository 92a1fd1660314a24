# syntax=docker/dockerfile:1
# One image for gateway and worker (compose picks the command). The first stage installs production
# dependencies from the lock file, knowing only the workspaces' package.json files, so that layer is
# rebuilt only when dependencies change.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/redis-server/package.json packages/redis-server/
COPY packages/client/package.json packages/client/
COPY packages/skill/package.json packages/skill/
COPY packages/telemetry/package.json packages/telemetry/
COPY apps/gateway/package.json apps/gateway/
COPY apps/worker/package.json apps/worker/
COPY apps/standalone/package.json apps/standalone/
COPY apps/cli/package.json apps/cli/
COPY apps/console/package.json apps/console/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# The runtime: dependencies, sources and their bundles (npm run build: plain JavaScript, no loader
# at run time), not root. Compose picks the command: the same as `npm run start:gateway` and
# `npm run start:worker`.
FROM node:24-bookworm-slim AS runtime
# Outside a container the gateway and the worker's /metrics listen on 127.0.0.1 only; in one, the
# network is the container's own and its ports are reached from outside it.
ENV NODE_ENV=production HOST=0.0.0.0 METRICS_HOST=0.0.0.0
WORKDIR /app
COPY --from=deps /app ./
COPY packages ./packages
COPY apps ./apps
COPY scripts ./scripts
COPY skills ./skills
RUN npm run build
USER node
EXPOSE 3000 9464
CMD ["node", "--no-flush-bytecode", "--max-semi-space-size=8", "--max-old-space-size=512", "--v8-pool-size=2", "--import", "./apps/gateway/dist/tracing.mjs", "apps/gateway/dist/main.mjs"]
