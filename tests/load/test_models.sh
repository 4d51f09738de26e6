#!/usr/bin/env bash
# test_models.sh SERVER LOADGEN: thue-loadgen's room models hold under both subprotocols.
# Against one server it plays short matches (k = 3, limit 12: rounds end by repetition and
# by the limit, matches end and rematch) between pairs with two spectators each, one
# player against a server bot and one room of two bots, with every player and spectator
# checking its model against a `sync` every 5 updates and every message also read by the
# codec (--check). Each of --protocol 1 and 2 must end with no error, no mismatch, no
# version gap, some checks and confirmed moves; thue.v2 must have applied played events
# and its spectators must have received fewer bytes per move than thue.v1's.
# Bad --protocol values are refused before anything connects.
set -euo pipefail
SERVER=$1
LOADGEN=$2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/thue-models.XXXXXX")
PID=""
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "test_models: FAIL: $*" >&2; exit 1; }

: >"$WORK/server.log"
"$SERVER" --port 0 --bind 127.0.0.1 --db :memory: --log-level warn --rate 10000 --burst 10000 \
  --guest-bot-vs-bot 1 --bot-seats-per-owner 100 --bot-seats-per-ip 100 --reviews 0 \
  --threads 1 >"$WORK/server.log" 2>&1 &
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

for proto in 1 2; do
  rc=0
  "$LOADGEN" --server "$URL" --server-pid "$PID" --protocol "$proto" --matches 6 \
    --bot-share 0.34 --bot greedy --bot-think-ms 10 --spectators 2 \
    --search-rooms 1 --search-bot greedy --search-think-ms 10 \
    --k 3 --limit 12 --check-every 5 --check --seed 11 --warmup 0.3 --duration 2 --json \
    >"$WORK/v$proto.json" 2>"$WORK/v$proto.err" || rc=$?
  [ "$rc" = 0 ] || fail "--protocol $proto: exit $rc: $(cat "$WORK/v$proto.err") $(cat "$WORK/v$proto.json")"
  python3 - "$WORK/v$proto.json" "$proto" <<'PY' || fail "--protocol $proto: $(cat "$WORK/v$proto.json")"
import json, sys
d = json.load(open(sys.argv[1]))
proto = int(sys.argv[2])
m = d["model"]
assert d["protocol"] == proto, d["protocol"]
assert d["errors_total"] == 0, d["errors"]
assert m["mismatches"] == 0 and m["gaps"] == 0 and m["bad_played"] == 0, m
assert m["checks"] > 0, m
assert d["moves_confirmed_window"] > 0 and d["matches_finished"] > 0, d
assert d["spectators"] == 4 * 2, d["spectators"]  # the 4 pairs' rooms, 2 each
assert d["bytes_per_move"]["spectator"] > 0 and d["bytes_per_move"]["player"] > 0, d
if proto == 2:
    assert m["played"] > 0, m
PY
done
python3 - "$WORK/v1.json" "$WORK/v2.json" <<'PY' || fail "thue.v2's spectators did not receive fewer bytes a move"
import json, sys
v1, v2 = (json.load(open(p))["bytes_per_move"]["spectator"] for p in sys.argv[1:3])
assert v2 < v1, (v1, v2)
PY

for bad in 0 3 v2 "" 2x; do
  rc=0
  "$LOADGEN" --server "$URL" --idle 1 --protocol "$bad" >"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
  [ "$rc" = 2 ] || fail "--protocol '$bad': exit $rc, expected 2"
  grep -q -- "--protocol" "$WORK/bad.err" || fail "--protocol '$bad': the error does not name it: $(cat "$WORK/bad.err")"
done
echo "test_models: ok (thue.v1 and thue.v2: no mismatch, no gap, no error; 5 bad values refused)"
