#!/usr/bin/env bash
# test_sources.sh SERVER LOADGEN: thue-loadgen --source spreads its connections over the
# addresses given. A server that lets in 4 connections per address takes 12 from three
# source addresses, and refuses some of the same 12 from one address; the loadgen's bad
# --source values are refused before anything connects.
set -euo pipefail
SERVER=$1
LOADGEN=$2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/thue-sources.XXXXXX")
PID=""
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "test_sources: FAIL: $*" >&2; exit 1; }

# The log exists before the server starts: the background job opens it only once it runs,
# and a sed before that (a busy machine) would fail the script under set -e.
: >"$WORK/server.log"
"$SERVER" --port 0 --bind 127.0.0.1 --db :memory: --log-level warn \
  --max-connections-per-ip 4 >"$WORK/server.log" 2>&1 &
PID=$!
PORT=""
for _ in $(seq 1 200); do
  PORT=$(sed -n 's|^thue-server listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$WORK/server.log")
  [ -n "$PORT" ] && break
  kill -0 "$PID" 2>/dev/null || fail "the server did not start: $(cat "$WORK/server.log")"
  sleep 0.05
done
[ -n "$PORT" ] || fail "the server did not say its port in 10 s"
URL="ws://127.0.0.1:$PORT/ws"

# Three addresses, 4 connections each: every one is let in and stays.
"$LOADGEN" --server "$URL" --matches 0 --idle 12 --source 127.0.3.1,127.0.3.2,127.0.3.3 \
  --warmup 0 --duration 0.5 --json >"$WORK/three.json" 2>"$WORK/three.err" ||
  fail "12 connections from 3 addresses: $(cat "$WORK/three.err") $(cat "$WORK/three.json")"
python3 - "$WORK/three.json" <<'PY' || fail "12 connections from 3 addresses were not all up"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["connections"]
assert c["up"] == 12 and c["idle_open_at_end"] == 12 and d["errors_total"] == 0, c
PY

# One address: the server's per-address limit refuses all but 4 (so the 12 above did come
# from three addresses).
rc=0
"$LOADGEN" --server "$URL" --matches 0 --idle 12 --source 127.0.3.4 \
  --warmup 0 --duration 0.5 --json >"$WORK/one.json" 2>"$WORK/one.err" || rc=$?
[ "$rc" = 1 ] || fail "12 connections from one address: exit $rc, expected 1 (errors)"
python3 - "$WORK/one.json" <<'PY' || fail "12 connections from one address: not 4 up"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["connections"]["idle_open_at_end"] == 4, d["connections"]
PY

# Bad values: exit 2 with a sentence naming the flag, nothing connects.
for bad in "10.0.0.1" "127.0.0.1,127.0.0.1" "127.0.0.1," "::1" "127.0.0.256" "127.0.0.1x"; do
  rc=0
  "$LOADGEN" --server "$URL" --idle 1 --source "$bad" >"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
  [ "$rc" = 2 ] || fail "--source '$bad': exit $rc, expected 2"
  grep -q -- "--source" "$WORK/bad.err" || fail "--source '$bad': the error does not name --source: $(cat "$WORK/bad.err")"
done
echo "test_sources: ok (12 of 12 from three addresses, 4 of 12 from one, 6 bad values refused)"
