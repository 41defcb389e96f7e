# stagewatch container image: `stagewatch serve` on the official Node.js 24 image.
#   docker build -t stagewatch:0.1.0 --build-arg VERSION=0.1.0 --build-arg REVISION=$(git rev-parse HEAD) .
# The Node.js version matches the one development and CI run (scripts/node-env.sh installs 24).
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# Compiles TypeScript and bundles the command line with the dev dependencies (typescript, esbuild).
FROM ${NODE_IMAGE} AS build
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/bundle-cli.mjs ./scripts/
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE}
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="stagewatch" \
      org.opencontainers.image.description="Observes Kubernetes deployments through informers and publishes stage verdicts (applied, bootstrapped, healthy) on NATS." \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
ENV NODE_ENV=production
# V8 grows the young generation to 2 x 64 MiB on a machine with memory to spare and keeps it,
# nearly empty after each scavenge: 120 MiB of the service's 400 MiB resident at 20,000 pods
# (bench/results/cluster-profile-*.json). 16 MiB semi-spaces bound it to 48 MiB; the watch path's
# garbage dies young either way (docs/design/performance.md, "Memory outside the heap").
ENV NODE_OPTIONS=--max-semi-space-size=16
# glibc gives each thread that allocates an arena of its own (libuv's pool, V8's workers), up to
# 8 per core, each keeping what it once held: two arenas left a started replica 13 MiB smaller and
# its peak at 20,000 pods 21 MiB lower, with no CPU cost beyond the runs' spread
# (bench/results/malloc-arenas.json).
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
# The command line's bundle carries every package it runs (scripts/bundle-cli.mjs), so the image
# has no node_modules: the production dependencies would add 124 MB that nothing loads. The
# library's compiled modules (dist/*/) serve `import "stagewatch"`, not the command.
# package.json says "type": "module".
COPY --from=build /build/dist/cli.js ./dist/
COPY --from=build /build/dist/cli-bundle ./dist/cli-bundle
COPY package.json ./
# The official image's unprivileged user (uid 1000); the Helm chart runs it with a read-only root
# filesystem, so nothing may write under /app at run time.
USER node
EXPOSE 9090
# Exec form: node is PID 1 and receives SIGTERM itself (the service handles it to shut down cleanly).
ENTRYPOINT ["node", "/app/dist/cli.js"]
CMD ["serve"]
