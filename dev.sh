#!/usr/bin/env bash
# The one entry point for people and CI on a fresh machine:
#   ./dev.sh demo    the live demo (local control plane, NATS, the service, sample deployments)
#   ./dev.sh test    every test suite (unit and end-to-end against a real control plane)
#   ./dev.sh <npm script> [args...]   any other npm script, with the same set-up
set -euo pipefail
cd "$(dirname "$0")"
. scripts/node-env.sh
# npm ci only when the lockfile changed since the last install: keeps repeated runs fast. A
# node_modules that is a link (a git worktree sharing another checkout's install) is never
# reinstalled from here: a fresh worktree's lockfile is newer than the install by its checkout
# time alone, and npm ci would empty the other checkout's node_modules through the link.
if [ ! -L node_modules ] && { [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  npm ci --no-audit --no-fund >&2
fi
cmd="${1:-test}"; shift || true
exec npm run --silent "$cmd" -- "$@"
