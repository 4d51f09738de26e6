#!/usr/bin/env bash
# Installs whatever is missing (Debian 12, apt; quiet when everything is there), then
# configures, builds and runs every test twice: an optimised build, and a build with
# AddressSanitizer + UndefinedBehaviorSanitizer. Exits non-zero on any failure.
# Idempotent: re-running reuses the build directories.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

. scripts/deps.sh
thue_install_deps build-essential cmake pkg-config libcmocka-dev python3

jobs=$(nproc 2>/dev/null || echo 2)

echo "== optimised build (build/)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTHUE_WERROR=ON >/dev/null
cmake --build build -j"$jobs" >/dev/null
ctest --test-dir build -j"$jobs" --output-on-failure

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build (build-asan/)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTHUE_ASAN=ON -DTHUE_UBSAN=ON \
      -DTHUE_WERROR=ON >/dev/null
cmake --build build-asan -j"$jobs" >/dev/null
ctest --test-dir build-asan -j"$jobs" --output-on-failure
