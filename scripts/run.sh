#!/usr/bin/env bash
# Runs the server (Debian 12): installs whatever is missing through apt (quiet when
# everything is there), builds an optimised thue-server in build/, and runs it on port
# 8080 with any extra arguments passed through:
#   bash scripts/run.sh                      # http://localhost:8080
#   bash scripts/run.sh --port 9000 --log-level debug
#   THUE_PORT=9000 bash scripts/run.sh
# Idempotent: re-running reuses the build. Stop the server with Ctrl-C.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

server=build/server/thue-server
[ -x "$server" ] || echo "building thue-server in build/ (once; later runs only rebuild what changed)"
bash scripts/build.sh

# The port the server will listen on, for the message: the last --port among the
# arguments, else THUE_PORT, else the default 8080 (a config file may say otherwise).
port=${THUE_PORT:-8080}
announce=1
prev=""
for arg in "$@"; do
  case $arg in
    --port=*) port=${arg#--port=} ;;
    -h|--help|--version) announce=0 ;;
  esac
  [ "$prev" = "--port" ] && port=$arg
  prev=$arg
done
if [ "$announce" = 1 ]; then
  if [ "$port" = 0 ]; then
    echo "open the address that the server logs below (--port 0 takes any free port)"
  else
    echo "open http://localhost:$port"
  fi
fi
exec "$server" "$@"
