#!/usr/bin/env bash
# Installs Debian's prometheus package (the server and promtool) for the dashboard and metrics
# tests, when they are missing. The tests start their own Prometheus on a free loopback port with a
# temporary config and storage directory, so the package's own service must not run: its default
# config scrapes :9090 and :9100 and would hold port 9090, stagewatch's default metrics port.
#
# Prints `prometheus=PATH` and `promtool=PATH` on stdout (progress goes to stderr). Needs root for
# apt-get, as CI has; on a machine that already has both commands it changes nothing.
set -euo pipefail

log() { echo "stagewatch prometheus install: $*" >&2; }

if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    log "prometheus and promtool are missing and installing them needs root (apt-get install prometheus)"
    exit 1
  fi
  # policy-rc.d answering 101 is Debian's documented way to keep maintainer scripts from starting
  # services (invoke-rc.d honours it). Container images usually ship one; add ours only for the
  # install when there is none, and take it away again.
  policy=/usr/sbin/policy-rc.d
  own_policy=
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod +x "$policy"
    own_policy=1
  fi
  log "installing Debian's prometheus package"
  export DEBIAN_FRONTEND=noninteractive
  # Update the package lists only when installing from them fails: a fresh machine has none.
  if ! apt-get install -y --no-install-recommends prometheus >&2; then
    apt-get update >&2
    apt-get install -y --no-install-recommends prometheus >&2
  fi
  [ -n "$own_policy" ] && rm -f "$policy"
fi

# On a machine with systemd, a unit enabled by an earlier install may still be running.
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  if systemctl is-active --quiet prometheus 2>/dev/null; then
    log "stopping and disabling the packaged prometheus service"
    systemctl disable --now prometheus >&2 || true
  fi
fi

echo "prometheus=$(command -v prometheus)"
echo "promtool=$(command -v promtool)"
