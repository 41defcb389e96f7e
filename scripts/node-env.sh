# Sourced, not run: puts Node.js 24 first on PATH when the machine's node is older.
# The Kubernetes client's HTTP stack (undici 8) needs Node >= 22.19; Debian-era machines ship 20.
# The npm registry carries Node itself as the package `node`, so no download site is needed.
stagewatch_node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=19)?0:1)'
}
if ! stagewatch_node_ok; then
  STAGEWATCH_NODE_PREFIX="${STAGEWATCH_NODE_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/stagewatch/node24}"
  if [ ! -x "$STAGEWATCH_NODE_PREFIX/bin/node" ]; then
    echo "stagewatch: installing Node.js 24 from the npm registry into $STAGEWATCH_NODE_PREFIX" >&2
    npm install -g --prefix "$STAGEWATCH_NODE_PREFIX" node@24 >&2 || return 1
  fi
  export PATH="$STAGEWATCH_NODE_PREFIX/bin:$PATH"
  stagewatch_node_ok || { echo "stagewatch: Node.js >= 22.19 is required, found $(node --version)" >&2; return 1; }
fi
