#!/usr/bin/env bash
# Runs thue-server through its faults (tests/faults/faults.mjs) with players at work:
# kill -9 and a restart, SIGTERM, a full disk, a read-only file system. Needs root (a
# tmpfs is mounted; strace attaches to the server) and strace, node and the integration
# tests' npm packages (scripts/test.sh installs all of them).
#
#   scripts/faults.sh [--build DIR] [--only NAME-PART]
#
#   --build DIR   the build whose server to use (default build/, built when missing)
#   --only TEXT   only the faults whose name contains TEXT ("kill", "SIGTERM", "disk",
#                 "read-only")
# Prints one line of figures per fault; exits 1 when one fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=build
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="${2:?--build takes a directory}"; shift 2 ;;
    --only) only=(--only "${2:?--only takes a text}"); shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "faults.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
[ -x "$build/server/thue-server" ] || bash scripts/build.sh
[ -d tests/integration/node_modules/ws ] || (cd tests/integration && npm ci --silent --no-audit --no-fund)
if [ "$(id -u)" != 0 ]; then
  echo "faults.sh: the disk-full and read-only faults need root (mount, ptrace); run it as root" >&2
fi
command -v strace >/dev/null || echo "faults.sh: strace is missing (apt-get install strace): the read-only fault will fail" >&2
exec node tests/faults/faults.mjs --server "$build/server/thue-server" "${only[@]}"
