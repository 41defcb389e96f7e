#!/usr/bin/env bash
# Builds the Helm CLI the chart tests run (helm lint, helm template), once per machine, from the Go
# module proxy at a pinned version, or reuses what an earlier run built. Same layout as build.sh:
# $STAGEWATCH_CACHE_DIR/helm-<version>/helm, built aside and renamed only when the build succeeded,
# so an interrupted build is redone and a present one is trusted.
#
# Prints `helm=PATH` on stdout (progress goes to stderr). Safe to run concurrently: a lock
# serialises builds. Set STAGEWATCH_HELM to an existing helm binary to skip the build.
set -euo pipefail

HELM_VERSION=v4.3.1
cache="${STAGEWATCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stagewatch}"
helm_dir="$cache/helm-$HELM_VERSION"

log() { echo "stagewatch helm build: $*" >&2; }

if [ -n "${STAGEWATCH_HELM:-}" ]; then
  echo "helm=$STAGEWATCH_HELM"
  exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.build-helm.lock"
flock 9

if [ ! -d "$helm_dir" ]; then
  if ! command -v go >/dev/null 2>&1; then
    if [ -x /usr/local/go/bin/go ]; then
      export PATH="/usr/local/go/bin:$PATH"
    else
      log "Go is needed to build helm $HELM_VERSION (or set STAGEWATCH_HELM to a helm binary)"
      exit 1
    fi
  fi
  out="$helm_dir.partial"
  rm -rf "$out"; mkdir -p "$out"
  log "building helm $HELM_VERSION into $helm_dir (a cold build takes minutes; later runs reuse it)"
  start=$SECONDS
  # Helm's release Makefile stamps the version the same way; without it `helm version` says v4-dev.
  CGO_ENABLED=0 GOBIN="$out" go install -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$HELM_VERSION" \
    "helm.sh/helm/v4/cmd/helm@$HELM_VERSION" >&2
  mv "$out" "$helm_dir"
  log "built helm $HELM_VERSION in $((SECONDS - start))s"
fi

echo "helm=$helm_dir/helm"
