#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run):
#   bash scripts/test.sh
# Installs whatever is missing (Debian 12, apt and npm; quiet when everything is there),
# then configures, builds and runs every test twice (unit, integration against the real
# server, browser tests in headless Chromium; the store's unit tests once more against a
# throw-away PostgreSQL started here, scripts/services.sh): an optimised build, and a build with
# AddressSanitizer + UndefinedBehaviorSanitizer; between them the fault tests
# (scripts/faults.sh, as root), after them a 1-minute soak against the ASan server
# (scripts/soak.sh); then the threaded tests once more under ThreadSanitizer, and the
# fuzzers of the protocol decoder, the lobby, the repetition checks and the games for
# 30, 20, 20 and 15 s (scripts/fuzz.sh: libFuzzer with ASan + UBSan). Exits non-zero on any failure.
# Idempotent: re-running reuses the build directories.
#
# The quick run, for the edit-test loop (docs/testing.md, "Quick runs"):
#   bash scripts/test.sh --quick MODULE...
#   bash scripts/test.sh --quick
# builds in build/ only what the tests of the named modules need and runs only those ctest
# entries (unit, integration and browser tests labelled with the module: ctest -L), in the
# optimised build only: no sanitizers, faults, soak or fuzzing. The modules are the ctest
# labels of tests/modules.cmake, after the source layout: thue games search protocol
# server net lobby ladder store cluster cli web load. Without a MODULE: the modules of the
# files changed since origin/main (committed or not, and new files), by path; a change
# that maps to no module (a build file, server/base, a test helper) or no change at all
# adds every unit test (test_*). PostgreSQL and Redis are started (scripts/services.sh)
# only for store (PostgreSQL: the _pg entries) and cluster (Redis: test_cluster_*).
#   bash scripts/test.sh --quick --list [MODULE...]
# says what that would build and run, and stops there.
#   bash scripts/test.sh --help
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() { sed -n '2,/^set -euo/{/^#/p}' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
quick=0
list=0
modules=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --list) list=1 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "test.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) [ "$quick" = 1 ] || { echo "test.sh: '$1': modules go after --quick (try --help)" >&2; exit 2; }
       modules+=("$1") ;;
  esac
  shift
done
if [ "$list" = 1 ] && [ "$quick" = 0 ]; then
  echo "test.sh: --list goes with --quick (try --help)" >&2
  exit 2
fi

. scripts/deps.sh
thue_install_deps build-essential cmake pkg-config libcmocka-dev libuv1-dev libjansson-dev \
                  libwebsockets-dev libwebsockets-evlib-uv libsqlite3-dev libicu-dev \
                  python3 python3-yaml clang libclang-rt-14-dev chromium strace \
                  postgresql libpq-dev redis-server libhiredis-dev haproxy zlib1g-dev libsodium-dev \
                  stunnel4
# Node and npm run the protocol's schema test (ajv), the integration tests (ws) and the
# browser tests (playwright-core, driving Debian's chromium): Debian's, unless the
# machine has them.
command -v npm >/dev/null 2>&1 || thue_install_deps nodejs npm
for dir in tests/protocol tests/integration tests/e2e; do
  if [ ! -f "$dir/node_modules/.package-lock.json" ] ||
     [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    echo "installing the npm packages of $dir"
    (cd "$dir" && npm ci --silent --no-audit --no-fund >/dev/null)
  fi
done

jobs=$(nproc 2>/dev/null || echo 2)

# A throw-away PostgreSQL and Redis (scripts/services.sh, on loopback; PostgreSQL as the
# user "postgres" when run as root), in one directory, stopped and removed at exit.
# THUE_TEST_PG and THUE_TEST_REDIS must be set before the builds are configured: the
# store tests' _pg entries (tests/unit/store.cmake) and the cluster unit tests
# (tests/unit/cluster.cmake) are registered only then. THUE_TEST_PG_DIR lets the store's
# restart test restart PostgreSQL; the tests that kill Redis start private ones, and the
# integration and browser tests of several nodes start their own of both.
# start_services [postgres] [redis]
svc_dir=""
stop_services() {
  [ -n "$svc_dir" ] || return 0
  bash scripts/services.sh stop "$svc_dir" >/dev/null 2>&1 || true
  rm -rf "$svc_dir"
}
trap stop_services EXIT
start_services() {
  local svc svc_env=""
  svc_dir=$(mktemp -d /tmp/thue-test-services-XXXXXX)
  for svc in "$@"; do
    svc_env+=$(bash scripts/services.sh "$svc" "$svc_dir")$'\n' # set -e: a failed start stops here
  done
  eval "$svc_env"
  case " $* " in *" postgres "*)
    [ -n "${THUE_TEST_PG:-}" ] || { echo "test.sh: services.sh printed no THUE_TEST_PG" >&2; exit 1; }
    export THUE_TEST_PG THUE_TEST_PG_DIR="$svc_dir"
    echo "PostgreSQL for the store tests: $THUE_TEST_PG" ;;
  esac
  case " $* " in *" redis "*)
    [ -n "${THUE_TEST_REDIS:-}" ] || { echo "test.sh: services.sh printed no THUE_TEST_REDIS" >&2; exit 1; }
    export THUE_TEST_REDIS
    echo "Redis for the cluster tests: $THUE_TEST_REDIS" ;;
  esac
}

if [ "$quick" = 1 ]; then
  . scripts/quick.sh
  quick_run "$jobs" "$list" "${modules[@]}"
  exit 0
fi

start_services postgres redis

echo "== optimised build (build/)"
# The same build script as scripts/run.sh and the Dockerfile, warnings as errors.
bash scripts/build.sh -DTHUE_WERROR=ON
ctest --test-dir build -j"$jobs" --output-on-failure

echo "== faults (scripts/faults.sh): kill -9, SIGTERM, a full disk, a read-only file system"
bash scripts/faults.sh --build build

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build (build-asan/)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTHUE_ASAN=ON -DTHUE_UBSAN=ON \
      -DTHUE_WERROR=ON >/dev/null
cmake --build build-asan -j"$jobs" >/dev/null
ctest --test-dir build-asan -j"$jobs" --output-on-failure

echo "== soak (scripts/soak.sh) for 1 minute against the ASan + UBSan server"
bash scripts/soak.sh --minutes 1 --build build-asan

echo "== ThreadSanitizer build of the threaded tests (build-tsan/)"
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTHUE_TSAN=ON -DTHUE_WERROR=ON >/dev/null
tsan_tests=(test_pool test_pool_owners test_pool_game test_pool_task test_bots_perfect test_budget
            test_lobby_matches test_lobby_rooms test_lobby_lists
            test_lobby_tournaments test_lobby_accounts
            test_store_schema test_store_records test_store_writes test_store_engines)
cmake --build build-tsan -j"$jobs" --target "${tsan_tests[@]}" >/dev/null
# TSan needs a fixed address layout on some kernels: setarch -R turns randomisation
# off where that is allowed (it is harmless elsewhere).
tsan_run=()
if setarch "$(uname -m)" -R true 2>/dev/null; then
  tsan_run=(setarch "$(uname -m)" -R)
fi
for t in "${tsan_tests[@]}"; do
  log="build-tsan/$t.log"
  if ! TSAN_OPTIONS="halt_on_error=1" "${tsan_run[@]}" "build-tsan/tests/unit/$t" >"$log" 2>&1; then
    cat "$log"
    echo "$t failed under ThreadSanitizer"
    exit 1
  fi
  echo "$t: $(tail -n 1 "$log")"
done

echo "== libFuzzer (build-fuzz/): the protocol decoder 30 s, the lobby 20 s, the repetition checks 20 s, the games 15 s"
# Short runs; scripts/fuzz.sh --time 3600 is the long run (docs/operations.md, "Fuzzing").
bash scripts/fuzz.sh --time 30 protocol
bash scripts/fuzz.sh --time 20 lobby
bash scripts/fuzz.sh --time 20 repetition
bash scripts/fuzz.sh --time 15 games
