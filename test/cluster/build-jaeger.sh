#!/usr/bin/env bash
# Builds Jaeger, the trace backend the tracing e2e test exports to and reads back from (all-in-one:
# OTLP receiver, in-memory storage, query API), once per machine, from the Go module proxy at a
# pinned version, or reuses what an earlier run built. Same layout as build.sh:
# $STAGEWATCH_CACHE_DIR/jaeger-<version>/jaeger, built aside and renamed only when the build
# succeeded, so an interrupted build is redone and a present one is trusted.
#
# `go install github.com/jaegertracing/jaeger/cmd/jaeger@v1.76.0` refuses the module's replace
# directives, so the wrapper module test/cluster/go/jaeger records it as a tool (`go get -tool`),
# with a committed go.sum, and this builds that tool.
#
# Prints `jaeger=PATH` on stdout (progress goes to stderr). Safe to run concurrently: a lock
# serialises builds. Set STAGEWATCH_JAEGER to an existing jaeger binary to skip the build.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
JAEGER_VERSION="$(awk '$1 == "github.com/jaegertracing/jaeger" { print $2 }' "$here/go/jaeger/go.mod" | head -n1)"
cache="${STAGEWATCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stagewatch}"
jaeger_dir="$cache/jaeger-$JAEGER_VERSION"

log() { echo "stagewatch jaeger build: $*" >&2; }

if [ -n "${STAGEWATCH_JAEGER:-}" ]; then
  echo "jaeger=$STAGEWATCH_JAEGER"
  exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.build-jaeger.lock"
flock 9

if [ ! -d "$jaeger_dir" ]; then
  if ! command -v go >/dev/null 2>&1; then
    if [ -x /usr/local/go/bin/go ]; then
      export PATH="/usr/local/go/bin:$PATH"
    else
      log "Go is needed to build jaeger $JAEGER_VERSION (or set STAGEWATCH_JAEGER to a jaeger binary)"
      exit 1
    fi
  fi
  out="$jaeger_dir.partial"
  rm -rf "$out"; mkdir -p "$out"
  log "building jaeger $JAEGER_VERSION into $jaeger_dir (a cold build takes minutes; later runs reuse it)"
  start=$SECONDS
  (cd "$here/go/jaeger" && CGO_ENABLED=0 nice -n 10 go build -mod=readonly -trimpath -ldflags "-s -w" \
    -o "$out/jaeger" github.com/jaegertracing/jaeger/cmd/jaeger) >&2
  mv "$out" "$jaeger_dir"
  log "built jaeger $JAEGER_VERSION in $((SECONDS - start))s"
fi

echo "jaeger=$jaeger_dir/jaeger"
