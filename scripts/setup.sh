#!/usr/bin/env bash
# One-shot setup on a fresh Debian machine: system RocksDB (for the engine addon) and RocksDB's own tools
# (oracles for the tests), npm dependencies, the addon, the TypeScript build.
# Without root or sudo the system packages are skipped: everything read-only still works.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs="librocksdb-dev rocksdb-tools tmux chromium"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else SUDO="none"; fi
  if [ "$SUDO" = none ]; then
    echo "setup: not root and no sudo; skipping system packages:$missing (engine commands will be unavailable)" >&2
  else
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
  fi
fi

npm ci --no-audit --no-fund
npm run build:addon
npm run build
