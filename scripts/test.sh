#!/usr/bin/env bash
# Installs whatever is missing (Debian 12, apt; quiet when everything is there), then
# configures, builds and runs every test twice: an optimised build, and a build with
# AddressSanitizer + UndefinedBehaviorSanitizer; then the threaded tests (the worker pool,
# split searches) once more under ThreadSanitizer. Exits non-zero on any failure.
# Idempotent: re-running reuses the build directories.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

. scripts/deps.sh
thue_install_deps build-essential cmake pkg-config libcmocka-dev libuv1-dev python3

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

echo "== ThreadSanitizer build of the threaded tests (build-tsan/)"
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTHUE_TSAN=ON -DTHUE_WERROR=ON >/dev/null
cmake --build build-tsan -j"$jobs" --target test_pool test_bots_perfect >/dev/null
# TSan needs a fixed address layout on some kernels: setarch -R turns randomisation
# off where that is allowed (it is harmless elsewhere).
tsan_run=()
if setarch "$(uname -m)" -R true 2>/dev/null; then
  tsan_run=(setarch "$(uname -m)" -R)
fi
for t in test_pool test_bots_perfect; do
  log="build-tsan/$t.log"
  if ! TSAN_OPTIONS="halt_on_error=1" "${tsan_run[@]}" "build-tsan/tests/unit/$t" >"$log" 2>&1; then
    cat "$log"
    echo "$t failed under ThreadSanitizer"
    exit 1
  fi
  echo "$t: $(tail -n 1 "$log")"
done
