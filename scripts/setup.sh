#!/usr/bin/env bash
# One-shot setup on a fresh Debian machine: system RocksDB (for the engine addon) and RocksDB's own tools
# (oracles for the tests), npm dependencies (whose install script builds the addon, once), the TypeScript
# build. One line per step; everything the steps print goes to setup.log, named when a step fails.
# Without root or sudo the system packages are skipped: everything read-only still works.
set -euo pipefail
cd "$(dirname "$0")/.."
log="$PWD/setup.log"
: >"$log"

# step NAME CMD...: one line, the command's output into the log; on failure its last lines and the log's name
step() {
  local name=$1
  shift
  echo "setup: $name"
  if ! "$@" >>"$log" 2>&1; then
    echo "setup: $name failed; the last lines of the log:" >&2
    tail -n 8 "$log" >&2
    echo "setup: full log: $log" >&2
    exit 1
  fi
}

# libisal-dev and libxxhash-dev: the engine addon's checksum helper (native/checksum.c); without them
# the npm bindings check the blocks
pkgs="librocksdb-dev rocksdb-tools tmux chromium libisal-dev libxxhash-dev"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else SUDO="none"; fi
  if [ "$SUDO" = none ]; then
    echo "setup: not root and no sudo; skipping system packages:$missing (engine commands will be unavailable)" >&2
  else
    step "system packages:$missing" $SUDO env DEBIAN_FRONTEND=noninteractive \
      sh -c "apt-get update -qq && apt-get install -y -qq $missing"
  fi
fi

# npm's install script (scripts/build-addon.mjs --optional) builds the engine addon; its own log is
# build-addon.log. JOBS=max: node-gyp runs make on every core. Where zstd-napi's prebuilt binary cannot
# be fetched (GitHub unreachable) it compiles zstd from source, ~57 s of one core: npm ci took 85 s
# on the 2-core development machine, 54 s with both cores (a clean clone each, npm's cache warm).
step "npm dependencies and the engine addon (npm ci)" env JOBS="${JOBS:-max}" npm ci --no-audit --no-fund --foreground-scripts
if [ -f /usr/include/rocksdb/db.h ] && [ ! -f build/Release/lsmscope_engine.node ]; then
  echo "setup: the engine addon did not build although librocksdb-dev is installed; full log: $PWD/build-addon.log" >&2
  exit 1
fi
grep -h "^lsmscope: engine addon" "$log" | tail -n 1 | sed 's/^lsmscope: /setup: /' || true
step "TypeScript build (npm run build)" npm run build
echo "setup: done (log: $log)"
