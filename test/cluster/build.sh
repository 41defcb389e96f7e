#!/usr/bin/env bash
# Builds the end-to-end control plane from Go modules, once per machine, or reuses what an earlier
# run built: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, nats-server and
# the kubectl the pipeline tests run (`kubectl apply -o json | stagewatch observe -f -`).
# `build.sh jaeger` builds (or finds) only Jaeger, the trace backend of the tracing test, and
# prints `jaeger=PATH`: it is no part of the control plane, and a cluster start never waits for it.
# `build.sh dsse-verify` does the same for the attestation test's verifier (test/cluster/go/dsse-verify:
# the DSSE and in-toto reference libraries, which stagewatch's attestations must satisfy).
#
# Binaries live outside the work tree in $STAGEWATCH_CACHE_DIR (default ~/.cache/stagewatch), one
# directory per component and version (kubernetes-v1.37.2/, etcd-v3.6.16/, ...). A directory only
# appears once its build succeeded (built aside, then renamed), so an interrupted build is redone
# and a present one is trusted. Go's own module and build caches stay at their default places.
#
# Prints one NAME=PATH line per binary on stdout (progress goes to stderr); the TypeScript harness
# reads those lines. Safe to run concurrently: a lock serialises builds.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cache="${STAGEWATCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stagewatch}"

# The wrapper modules' go.mod files are the single source of the Kubernetes and etcd versions.
module_version() { awk -v m="$2" '($1 == "require" && $2 == m) { print $3 } ($1 == m) { print $2 }' "$1" | head -n1; }
KUBERNETES_VERSION="$(module_version "$here/go/kube/go.mod" k8s.io/kubernetes)"
ETCD_VERSION="$(module_version "$here/go/etcd/go.mod" go.etcd.io/etcd/server/v3)"
KWOK_VERSION=v0.8.0
NATS_VERSION=v2.15.3
# The wrapper module test/cluster/go/jaeger is the source of Jaeger's version.
JAEGER_VERSION="$(module_version "$here/go/jaeger/go.mod" github.com/jaegertracing/jaeger)"

kube_dir="$cache/kubernetes-$KUBERNETES_VERSION"
# A directory of its own, not a fourth binary in kube_dir: a machine that built the control plane
# before kubectl was added builds only kubectl, from Go's warm module and build caches.
kubectl_dir="$cache/kubectl-$KUBERNETES_VERSION"
etcd_dir="$cache/etcd-$ETCD_VERSION"
kwok_dir="$cache/kwok-$KWOK_VERSION"
nats_dir="$cache/nats-server-$NATS_VERSION"
jaeger_dir="$cache/jaeger-$JAEGER_VERSION"
# The verifier is the project's own small program: its directory is named by the DSSE library's
# version and a hash of its source and go.sum, so a change to either builds it again.
DSSE_VERSION="$(module_version "$here/go/dsse-verify/go.mod" github.com/secure-systems-lab/go-securesystemslib)"
dsse_verify_dir="$cache/dsse-verify-$DSSE_VERSION-$(cat "$here/go/dsse-verify/main.go" "$here/go/dsse-verify/go.sum" | sha256sum | cut -c1-12)"

log() { echo "stagewatch cluster build: $*" >&2; }

need_go() {
  if ! command -v go >/dev/null 2>&1; then
    if [ -x /usr/local/go/bin/go ]; then
      export PATH="/usr/local/go/bin:$PATH"
    else
      log "Go is needed to build the local control plane (or set E2E_KUBECONFIG and E2E_NATS_URL to use an existing cluster)"
      exit 1
    fi
  fi
}

# build_into DIR NAME COMMAND...: runs COMMAND with $out set to a scratch directory and renames it
# to DIR when it succeeds; times the build so the cold cost stays visible in CI logs.
build_into() {
  local dir="$1" name="$2"; shift 2
  [ -d "$dir" ] && return 0
  need_go
  local out="$dir.partial"
  rm -rf "$out"; mkdir -p "$out"
  log "building $name into $dir (a cold build takes minutes; later runs reuse it)"
  local start=$SECONDS
  out="$out" "$@" >&2
  mv "$out" "$dir"
  log "built $name in $((SECONDS - start))s"
}

# go_build_kube PACKAGE...: the wrapper module's commands into $out, with the version stamped into
# k8s.io/component-base/version (kubectl's client version reads it too; unstamped, kubectl would
# warn about version skew against the API server).
go_build_kube() {
  local v=k8s.io/component-base/version
  local major="${KUBERNETES_VERSION#v}"; major="${major%%.*}"
  local minor="${KUBERNETES_VERSION#v*.}"; minor="${minor%%.*}"
  (cd "$here/go/kube" && CGO_ENABLED=0 go build -mod=readonly -trimpath \
    -ldflags "-s -w -X $v.gitVersion=$KUBERNETES_VERSION -X $v.gitMajor=$major -X $v.gitMinor=$minor -X $v.gitTreeState=clean" \
    -o "$out/" "$@")
}

build_kube() { go_build_kube ./cmd/kube-apiserver ./cmd/kube-controller-manager ./cmd/kube-scheduler; }

build_kubectl() { go_build_kube ./cmd/kubectl; }

build_etcd() {
  (cd "$here/go/etcd" && CGO_ENABLED=0 go build -mod=readonly -trimpath -ldflags "-s -w" -o "$out/etcd" .)
}

# kwok and nats-server carry no replace directives, so `go install module@version` builds them as
# published, checked against the Go checksum database.
build_kwok() {
  CGO_ENABLED=0 GOBIN="$out" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
}

build_nats() {
  CGO_ENABLED=0 GOBIN="$out" go install -trimpath -ldflags "-s -w" "github.com/nats-io/nats-server/v2@$NATS_VERSION"
}

# `go install github.com/jaegertracing/jaeger/cmd/jaeger@version` refuses the module's replace
# directives, so the wrapper module records it as a tool (`go get -tool`, committed go.sum) and
# this builds that tool.
build_jaeger() {
  (cd "$here/go/jaeger" && CGO_ENABLED=0 go build -mod=readonly -trimpath -ldflags "-s -w" -o "$out/jaeger" github.com/jaegertracing/jaeger/cmd/jaeger)
}

build_dsse_verify() {
  (cd "$here/go/dsse-verify" && CGO_ENABLED=0 go build -mod=readonly -trimpath -ldflags "-s -w" -o "$out/dsse-verify" .)
}

mkdir -p "$cache"
if [ "${1:-}" = "dsse-verify" ]; then
  exec 7>"$cache/.build-dsse-verify.lock"
  flock 7
  build_into "$dsse_verify_dir" "dsse-verify (go-securesystemslib $DSSE_VERSION)" build_dsse_verify
  echo "dsse-verify=$dsse_verify_dir/dsse-verify"
  exit 0
fi
if [ "${1:-}" = "jaeger" ]; then
  if [ -n "${STAGEWATCH_JAEGER:-}" ]; then echo "jaeger=$STAGEWATCH_JAEGER"; exit 0; fi
  # A lock of its own: a Jaeger build (long, cold) never holds up a control plane build.
  exec 8>"$cache/.build-jaeger.lock"
  flock 8
  build_into "$jaeger_dir" "jaeger $JAEGER_VERSION" build_jaeger
  echo "jaeger=$jaeger_dir/jaeger"
  exit 0
fi

exec 9>"$cache/.build.lock"
flock 9

build_into "$etcd_dir" "etcd $ETCD_VERSION" build_etcd
build_into "$nats_dir" "nats-server $NATS_VERSION" build_nats
build_into "$kwok_dir" "kwok $KWOK_VERSION" build_kwok
build_into "$kube_dir" "kubernetes $KUBERNETES_VERSION" build_kube
build_into "$kubectl_dir" "kubectl $KUBERNETES_VERSION" build_kubectl

echo "etcd=$etcd_dir/etcd"
echo "kube-apiserver=$kube_dir/kube-apiserver"
echo "kube-controller-manager=$kube_dir/kube-controller-manager"
echo "kube-scheduler=$kube_dir/kube-scheduler"
echo "kubectl=$kubectl_dir/kubectl"
echo "kwok=$kwok_dir/kwok"
echo "nats-server=$nats_dir/nats-server"
echo "kubernetes-version=$KUBERNETES_VERSION"
