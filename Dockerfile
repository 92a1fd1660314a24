# syntax=docker/dockerfile:1
# One image for gateway and worker (compose picks the command). The first stage installs production
# dependencies from the lock file, knowing only the workspaces' package.json files, so that layer is
# rebuilt only when dependencies change.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/redis-server/package.json packages/redis-server/
COPY apps/gateway/package.json apps/gateway/
COPY apps/worker/package.json apps/worker/
COPY apps/standalone/package.json apps/standalone/
COPY apps/keys/package.json apps/keys/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# The runtime: dependencies and sources (run as TypeScript by tsx), no build tools, not root.
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app ./
COPY packages ./packages
COPY apps ./apps
COPY skills ./skills
USER node
EXPOSE 3000 9464
CMD ["node", "--import", "tsx", "apps/gateway/src/main.ts"]
