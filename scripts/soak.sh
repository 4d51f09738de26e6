#!/usr/bin/env bash
# A soak run (tests/faults/soak.mjs): people-paced matches between people, against bots
# and through quick match, spectators and chat, with a connection cut and resumed every
# couple of seconds, against one server built with AddressSanitizer + UBSan. Fails on any
# error a client receives, a failed resume, RSS growth beyond the bound after the warm-up
# (the first fifth, at least 30 s), a sanitizer report, or an unclean SIGTERM exit.
#
#   scripts/soak.sh [--minutes N] [--rss-bound-mib M] [--build DIR] [--json]
#
#   --minutes N        length of the run (default 10; the test command runs 1)
#   --rss-bound-mib M  allowed RSS growth after the warm-up (default 24)
#   --build DIR        the build whose server to use (default build-asan/, configured
#                      and built with ASan + UBSan when missing)
# Prints the figures; exits 1 when the soak fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=build-asan
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes|--rss-bound-mib) args+=("$1" "${2:?$1 takes a number}"); shift 2 ;;
    --json) args+=(--json); shift ;;
    --build) build="${2:?--build takes a directory}"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "soak.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
if [ ! -x "$build/server/thue-server" ]; then
  if [ "$build" = build-asan ]; then
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTHUE_ASAN=ON -DTHUE_UBSAN=ON >/dev/null
    cmake --build build-asan -j"$(nproc 2>/dev/null || echo 2)" --target thue-server >/dev/null
  else
    echo "soak.sh: no server in $build/server/thue-server" >&2
    exit 1
  fi
fi
[ -d tests/integration/node_modules/ws ] || (cd tests/integration && npm ci --silent --no-audit --no-fund)
exec node tests/faults/soak.mjs --server "$build/server/thue-server" "${args[@]}"
