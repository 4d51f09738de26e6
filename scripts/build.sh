#!/usr/bin/env bash
# Builds thue-server and the `thue` tool, optimised, in build/ (Debian 12): installs the
# Debian packages that are missing first (quiet when everything is there). Extra
# arguments go to cmake's configure step:
#   bash scripts/build.sh                     # everything, tests included
#   bash scripts/build.sh -DTHUE_TESTS=OFF    # the programs only (the Dockerfile's build)
# scripts/run.sh, scripts/test.sh and the Dockerfile all build through this script.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=scripts/deps.sh
. scripts/deps.sh
thue_install_deps build-essential cmake pkg-config libuv1-dev libjansson-dev \
                  libwebsockets-dev libwebsockets-evlib-uv libsqlite3-dev libcmocka-dev libicu-dev \
                  libpq-dev libhiredis-dev zlib1g-dev libsodium-dev

# Quiet unless something fails: then the tool's output is shown.
quietly() {
  local out
  if ! out=$("$@" 2>&1); then
    printf '%s\n' "$out" >&2
    echo "build.sh: failed: $*" >&2
    exit 1
  fi
}
quietly cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
quietly cmake --build build -j"$(nproc 2>/dev/null || echo 2)"
