#!/usr/bin/env bash
# The server's load bench (docs/bench.md): starts build/server/thue-server on a free
# loopback port for each phase, loads it with build/tests/load/thue-loadgen and prints one
# table, one line per phase, with the targets next to the figures.
#
#   bash scripts/bench.sh              # the full bench (about 2 minutes)
#   bash scripts/bench.sh --quick      # a smoke test: small numbers, a few seconds
#
# Options:
#   --quick               20 matches, 200 idle connections, 300 many, 2 s windows
#   --phases LIST         a comma-separated subset of
#                         tcp,play,idle,play+bots,idle+bots,many,play+many
#                         (tcp: the baseline, the play phase's traffic over bare TCP;
#                         many: --many idle connections at the default keep-alive;
#                         play+many: the play phase beside them)
#   --many N              the many phases' idle connections (default 100000). They are
#                         bound to several loopback source addresses (thue-loadgen
#                         --source); when the open-file limit (ulimit -Hn) is lower, the
#                         phases run with what fits and say so (BLOCKED), with the
#                         per-connection figures projected to N
#   --port N              the server's port (default: a free one, from --port 0)
#   --protocol P          the load generator's subprotocol: 2 (thue.v2, the default) or
#                         1 (thue.v1; a server from before thue.v2 needs it)
#   --keep-log            keep the servers' logs and the loadgen's reports (their
#                         directory is printed)
#   --no-build            do not build; use the binaries as they are
#   --build-dir DIR       where the binaries are (default: build)
#   --server-bin FILE     thue-server to run (default: DIR/server/thue-server)
#   --loadgen-bin FILE    thue-loadgen to run (default: DIR/tests/load/thue-loadgen)
#   --ceiling-bin FILE    thue-tcp-ceiling to run (default: DIR/tests/load/thue-tcp-ceiling)
#   --json                print the phases' reports as JSON lines after the table
#
# Exit status: 0 when every phase ran without an error (whether or not the targets are
# met: they are reported), 1 when a phase had errors, confirmed no move, lost idle
# connections or the server died; 2 on a bad option; 130 on Ctrl-C.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

QUICK=0
PORT=0
KEEP_LOG=0
BUILD=1
BUILD_DIR=build
SERVER_BIN=""
LOADGEN_BIN=""
CEILING_BIN=""
PHASES="tcp,play,idle,play+bots,idle+bots,many,play+many"
JSON=0
MANY=""
PROTOCOL=2

die_usage() {
  echo "bench.sh: $*" >&2
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --keep-log) KEEP_LOG=1 ;;
    --no-build) BUILD=0 ;;
    --json) JSON=1 ;;
    --port|--build-dir|--server-bin|--loadgen-bin|--ceiling-bin|--phases|--many|--protocol)
      [ $# -ge 2 ] || die_usage "$1 needs a value"
      case "$1" in
        --port) PORT=$2 ;;
        --build-dir) BUILD_DIR=$2 ;;
        --server-bin) SERVER_BIN=$2 ;;
        --loadgen-bin) LOADGEN_BIN=$2 ;;
        --ceiling-bin) CEILING_BIN=$2 ;;
        --phases) PHASES=$2 ;;
        --many) MANY=$2 ;;
        --protocol) PROTOCOL=$2 ;;
      esac
      shift ;;
    -h|--help)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0 ;;
    *) die_usage "unknown option '$1'" ;;
  esac
  shift
done
case "$PORT" in
  ''|*[!0-9]*) die_usage "--port must be 0..65535" ;;
esac
[ "$PORT" -le 65535 ] || die_usage "--port must be 0..65535"
case "$PROTOCOL" in
  1|2) ;;
  *) die_usage "--protocol must be 1 (thue.v1) or 2 (thue.v2)" ;;
esac
case "$MANY" in
  '') ;;
  *[!0-9]*) die_usage "--many must be 1..1000000" ;;
  *) { [ "${#MANY}" -le 7 ] && [ "$MANY" -ge 1 ] && [ "$MANY" -le 1000000 ]; } ||
       die_usage "--many must be 1..1000000" ;;
esac
IFS=',' read -r -a PHASE_LIST <<< "$PHASES"
for p in "${PHASE_LIST[@]}"; do
  case "$p" in
    tcp|play|idle|play+bots|idle+bots|many|play+many) ;;
    *) die_usage "unknown phase '$p' (tcp, play, idle, play+bots, idle+bots, many, play+many)" ;;
  esac
done
SERVER_BIN=${SERVER_BIN:-$BUILD_DIR/server/thue-server}
LOADGEN_BIN=${LOADGEN_BIN:-$BUILD_DIR/tests/load/thue-loadgen}
CEILING_BIN=${CEILING_BIN:-$BUILD_DIR/tests/load/thue-tcp-ceiling}

command -v python3 >/dev/null || { echo "bench.sh: python3 is needed (the report)" >&2; exit 1; }
command -v curl >/dev/null || { echo "bench.sh: curl is needed (/healthz, /metrics)" >&2; exit 1; }

if [ "$BUILD" = 1 ]; then
  if [ ! -x "$SERVER_BIN" ] || [ ! -x "$LOADGEN_BIN" ] || [ ! -x "$CEILING_BIN" ]; then
    echo "bench.sh: building (scripts/build.sh)..." >&2
    bash scripts/build.sh
  else
    cmake --build "$BUILD_DIR" -j"$(nproc 2>/dev/null || echo 2)" \
          --target thue-server thue-loadgen thue-tcp-ceiling >/dev/null
  fi
fi
NEED=("$SERVER_BIN" "$LOADGEN_BIN")
case ",$PHASES," in *,tcp,*) NEED+=("$CEILING_BIN") ;; esac
for b in "${NEED[@]}"; do
  [ -x "$b" ] || { echo "bench.sh: $b is missing: build first (bash scripts/build.sh)" >&2; exit 1; }
done

# The figures of the issue, and the sizes of the phases.
if [ "$QUICK" = 1 ]; then
  MATCHES=20; IDLE=200; WARMUP=0.3; DURATION=1.5; IDLE_HOLD=1.5
  MANY=${MANY:-300}; MANY_HOLD=1.5
else
  MATCHES=500; IDLE=10000; WARMUP=5; DURATION=20; IDLE_HOLD=20
  # Held past the default keep-alive's ping (30 s of silence): every connection is
  # pinged and answers twice in the window.
  MANY=${MANY:-100000}; MANY_HOLD=65
fi
# The many phases connect this fast (the server's accept rate on loopback is higher; a
# burst of all at once overflows the listen queue and costs SYN retries, not work).
MANY_RATE=10000
SEARCH_ROOMS=2
SEARCH_BOT="uct:iterations=0,ms=60000"
SEARCH_THINK_MS=60000
CONNECT_RATE=2000

# Every descriptor we may get: 10,000 idle connections need as many on both sides.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# The many phases need --many + the players' connections on both sides, plus the
# server's reserve (96) and the loadgen's (64): with a lower limit they run with what
# fits (MANY_RUN) and the report says so.
NOFILE=$(ulimit -n)
MANY_RUN=$MANY
MANY_PLAYERS=$((2 * MATCHES))
if [ "$NOFILE" != unlimited ] && [ $((MANY + MANY_PLAYERS + 200)) -gt "$NOFILE" ]; then
  MANY_RUN=$((NOFILE - MANY_PLAYERS - 200))
  [ "$MANY_RUN" -ge 1 ] || MANY_RUN=1
fi
# Source addresses: one per 10,000 connections, so that each uses a third of its
# ephemeral ports and a second run within TIME_WAIT's minute still finds free ones.
# The two phases use different addresses (127.0.1.x and 127.0.2.x) for the same reason.
many_sources() { # many_sources THIRD_OCTET CONNECTIONS
  local n=$((($2 + 9999) / 10000)) list="" i
  for ((i = 1; i <= n; i++)); do list+="${list:+,}127.0.$1.$i"; done
  echo "$list"
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/thue-bench.XXXXXX")
SERVER_PID=""
SERVER_LOG=""
LOADGEN_PID=""
FAILED=0
INTERRUPTED=0

stop_server() {
  if [ -n "$SERVER_PID" ]; then
    if kill -0 "$SERVER_PID" 2>/dev/null; then
      kill -TERM "$SERVER_PID" 2>/dev/null || true
      for _ in $(seq 1 100); do
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.05
      done
      if kill -0 "$SERVER_PID" 2>/dev/null; then
        echo "bench.sh: the server did not stop in 5 s after SIGTERM: killing it" >&2
        kill -KILL "$SERVER_PID" 2>/dev/null || true
      fi
    fi
    local rc=0
    wait "$SERVER_PID" 2>/dev/null || rc=$?
    if [ "$rc" -ne 0 ] && [ -n "${SERVER_LOG:-}" ] && [ "$INTERRUPTED" = 0 ]; then
      echo "bench.sh: the server exited with status $rc; the end of its log ($SERVER_LOG):" >&2
      tail -n 30 "$SERVER_LOG" >&2 || true
      FAILED=1
    fi
    SERVER_PID=""
  fi
}

# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() {
  if [ -n "$LOADGEN_PID" ]; then
    kill -TERM "$LOADGEN_PID" 2>/dev/null || true
    wait "$LOADGEN_PID" 2>/dev/null || true
    LOADGEN_PID=""
  fi
  stop_server
  if [ "$KEEP_LOG" = 1 ]; then
    echo "bench.sh: logs and reports kept in $WORK" >&2
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT
# Ctrl-C reaches the server too (same process group): it is stopping already.
INTERRUPTED=0
trap 'INTERRUPTED=1; echo "bench.sh: interrupted" >&2; exit 130' INT TERM

server_died() {
  local log=$1
  echo "bench.sh: the server died; the end of its log ($log):" >&2
  tail -n 30 "$log" >&2 || true
}

# Starts a server for one phase (start_server LOG FLAG...: the phase's connection limit
# and keep-alive flags); sets SERVER_PID and SERVER_PORT.
start_server() {
  local log=$1
  shift
  local phase_flags=("$@")
  SERVER_LOG=$log
  # The bot phases' watcher is a guest that seats bots against bots, and every match is
  # a room made from one address (an older server, one to compare with, has no such
  # limits, nor their flags).
  local extra=()
  local help
  help=$("$SERVER_BIN" --help 2>/dev/null || true)
  if [[ $help == *--guest-bot-vs-bot* ]]; then
    extra=(--guest-bot-vs-bot 1 --bot-seats-per-owner 1000)
  fi
  if [[ $help == *--bot-seats-per-ip* ]]; then
    extra+=(--bot-seats-per-ip 1000)
  fi
  if [[ $help == *--room-rate-per-ip* ]]; then
    extra+=(--room-rate-per-ip 1000000)
  fi
  # The exact reviews of finished matches and the puzzles' generation (from 10 s after
  # start, while the database has fewer than --puzzles) run in the background on the
  # worker pool: their CPU is not the moves' cost, so the benches measure without them
  # (docs/bench.md).
  if [[ $help == *--reviews* ]]; then
    extra+=(--reviews 0)
  fi
  if [[ $help == *--puzzles* ]]; then
    extra+=(--puzzles 0)
  fi
  : >"$log" # before the server runs: the port is read from it at once
  "$SERVER_BIN" --port "$PORT" --bind 127.0.0.1 --db :memory: --log-level warn \
    --max-connections-per-ip 1000000 --max-rooms 100000 --rate 10000 --burst 10000 \
    "${phase_flags[@]}" "${extra[@]}" >"$log" 2>&1 &
  SERVER_PID=$!
  SERVER_PORT=""
  for _ in $(seq 1 200); do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      server_died "$log"
      SERVER_PID=""
      return 1
    fi
    SERVER_PORT=$(sed -n 's|^thue-server listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log" | head -n 1)
    if [ -n "$SERVER_PORT" ] &&
       curl -fsS --max-time 1 "http://127.0.0.1:$SERVER_PORT/healthz" >/dev/null 2>&1; then
      SERVER_RSS0=$(awk '$1 == "VmRSS:" { printf "%.1f", $2 / 1024 }' "/proc/$SERVER_PID/status" 2>/dev/null || echo -1)
      return 0
    fi
    sleep 0.05
  done
  echo "bench.sh: the server did not answer /healthz in 10 s; its log:" >&2
  tail -n 30 "$log" >&2
  return 1
}

metric() { # metric NAME: its value on the running server, or "?"
  curl -fsS --max-time 2 "http://127.0.0.1:$SERVER_PORT/metrics" 2>/dev/null |
    awk -v n="$1" '$1 == n { print $2; found = 1 } END { if (!found) print "?" }'
}

run_phase() {
  local name=$1; shift
  local tag=${name//+/_}
  local log="$WORK/$tag.server.log" out="$WORK/$tag.json" err="$WORK/$tag.loadgen.log"
  # The bench's short keep-alive, so that idle connections are pinged during the phase;
  # the many phases keep the server's default one, with room for every connection.
  local server_flags=(--max-connections 100000 --ping-s 5 --idle-s 15)
  case "$name" in
    many|play+many) server_flags=(--max-connections $((MANY_RUN + MANY_PLAYERS + 100))) ;;
  esac
  echo "bench.sh: phase $name..." >&2
  if ! start_server "$log" "${server_flags[@]}"; then
    echo "{\"phase\":\"$name\",\"failed\":\"the server did not start\"}" >"$out"
    FAILED=1
    return
  fi
  local mid=$1; shift
  "$LOADGEN_BIN" --server "ws://127.0.0.1:$SERVER_PORT/ws" --server-pid "$SERVER_PID" \
    --protocol "$PROTOCOL" --connect-rate "$CONNECT_RATE" --json "$@" >"$out.tmp" 2>"$err" &
  LOADGEN_PID=$!
  # In the middle of the window: are the bots searching, how many connections are open?
  sleep "$mid"
  local running connections
  running=$(metric thue_bot_jobs_running)
  connections=$(metric thue_connections)
  local rc=0
  wait "$LOADGEN_PID" || rc=$?
  LOADGEN_PID=""
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    server_died "$log"
    SERVER_PID=""
    FAILED=1
  fi
  stop_server
  if [ "$rc" -ge 2 ] || [ ! -s "$out.tmp" ]; then
    echo "bench.sh: thue-loadgen failed (exit $rc) in phase $name:" >&2
    tail -n 20 "$err" >&2
    echo "{\"phase\":\"$name\",\"failed\":\"thue-loadgen exit $rc\"}" >"$out"
    FAILED=1
    return
  fi
  python3 - "$name" "$running" "$connections" "$out.tmp" "$SERVER_RSS0" >"$out" <<'EOF'
import json, sys
name, running, conns, path, rss0 = sys.argv[1:6]
d = json.load(open(path))
d["phase"] = name
d["bot_jobs_running_mid"] = running
d["server_connections_mid"] = conns
d["server_rss_start_mib"] = float(rss0)
print(json.dumps(d))
EOF
}

# The baseline: the play phase's pattern and sizes over bare TCP, no server work at all.
run_tcp() {
  local out="$WORK/tcp.json" err="$WORK/tcp.log"
  echo "bench.sh: phase tcp (the baseline)..." >&2
  local rc=0
  "$CEILING_BIN" --pairs "$MATCHES" --warmup "$WARMUP" --duration "$DURATION" --json \
    >"$out.tmp" 2>"$err" || rc=$?
  if [ "$rc" -ne 0 ] || [ ! -s "$out.tmp" ]; then
    echo "bench.sh: thue-tcp-ceiling failed (exit $rc):" >&2
    tail -n 20 "$err" >&2
    echo "{\"phase\":\"tcp\",\"failed\":\"thue-tcp-ceiling exit $rc\"}" >"$out"
    FAILED=1
    return
  fi
  mv "$out.tmp" "$out"
}

# Seconds from the loadgen's start to the middle of its window.
mid_of() { # mid_of CONNECTIONS
  python3 -c "import sys; print(round($1 / $CONNECT_RATE + $WARMUP + $DURATION / 2 + 0.5, 2))"
}

IDLE_MID=$(python3 -c "print(round($IDLE / $CONNECT_RATE + $IDLE_HOLD / 2 + 0.5, 2))")
MANY_MID=$(python3 -c "print(round($MANY_RUN / $MANY_RATE + $MANY_HOLD / 2 + 0.5, 2))")
PLAY_MANY_MID=$(python3 -c "print(round(($MANY_RUN + $MANY_PLAYERS) / $MANY_RATE + $WARMUP + $DURATION / 2 + 0.5, 2))")
for p in "${PHASE_LIST[@]}"; do
  case "$p" in
    tcp)
      run_tcp ;;
    play)
      run_phase play "$(mid_of $((2 * MATCHES)))" --matches "$MATCHES" \
        --warmup "$WARMUP" --duration "$DURATION" ;;
    idle)
      run_phase idle "$IDLE_MID" --matches 0 --idle "$IDLE" --warmup 0 --duration "$IDLE_HOLD" ;;
    play+bots)
      run_phase play+bots "$(mid_of $((2 * MATCHES + 1)))" --matches "$MATCHES" \
        --search-rooms "$SEARCH_ROOMS" --search-bot "$SEARCH_BOT" \
        --search-think-ms "$SEARCH_THINK_MS" --warmup "$WARMUP" --duration "$DURATION" ;;
    idle+bots)
      run_phase idle+bots "$IDLE_MID" \
        --matches 0 --idle "$IDLE" --search-rooms "$SEARCH_ROOMS" --search-bot "$SEARCH_BOT" \
        --search-think-ms "$SEARCH_THINK_MS" --warmup 0 --duration "$IDLE_HOLD" ;;
    many)
      run_phase many "$MANY_MID" --matches 0 --idle "$MANY_RUN" --connect-rate "$MANY_RATE" \
        --source "$(many_sources 1 "$MANY_RUN")" --warmup 0 --duration "$MANY_HOLD" ;;
    play+many)
      run_phase play+many "$PLAY_MANY_MID" --matches "$MATCHES" --idle "$MANY_RUN" \
        --connect-rate "$MANY_RATE" --source "$(many_sources 2 $((MANY_RUN + MANY_PLAYERS)))" \
        --warmup "$WARMUP" --duration "$DURATION" ;;
  esac
done

# The table. The report decides the exit status: errors, no moves, lost idle connections.
set +e
python3 - "$QUICK" "$JSON" "$MATCHES" "$IDLE" "$WORK" "$MANY" "$MANY_RUN" "$NOFILE" "$PROTOCOL" "${PHASE_LIST[@]}" <<'EOF'
import json, os, sys
quick, want_json, matches, idle, work = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
many, many_run, nofile, protocol = int(sys.argv[6]), int(sys.argv[7]), sys.argv[8], int(sys.argv[9])
phases = sys.argv[10:]
rows = {}
for p in phases:
    path = os.path.join(work, p.replace("+", "_") + ".json")
    try:
        rows[p] = json.load(open(path))
    except Exception as e:
        rows[p] = {"phase": p, "failed": "no report (%s)" % e}

def f(x, fmt="%.1f"):
    return "-" if x is None or (isinstance(x, (int, float)) and x < 0) else fmt % x

MB300_MIB = 300e6 / 1048576
bad = []
hdr = ("phase", "conns", "moves/s", "p50 ms", "p99 ms", "max ms", "errors", "srv RSS MiB", "srv CPU% (loop)", "lg CPU%", "bots", "targets")
lines = []
base_p99 = rows.get("play", {}).get("rtt_ms", {}).get("p99")
tcp_mps = rows.get("tcp", {}).get("moves_per_s")
for p in phases:
    d = rows[p]
    if "failed" in d:
        lines.append((p, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "FAILED: " + d["failed"]))
        bad.append(p + ": " + d["failed"])
        continue
    if p == "tcp":
        rtt = d["rtt_ms"]
        if d["moves_per_s"] <= 0:
            bad.append("tcp: no move in the window")
        lines.append((p, str(2 * d["pairs"]), f(d["moves_per_s"], "%.0f"), f(rtt["p50"], "%.2f"),
                      f(rtt["p99"], "%.2f"), "-", "0", "-", "%s (-)" % f(d["server_cpu_pct"], "%.0f"),
                      f(d["client_cpu_pct"], "%.0f"), "-",
                      "baseline: bare TCP, %d/%d bytes a move" % (d["mover_bytes"], d["peer_bytes"])))
        continue
    c = d["connections"]
    rtt = d["rtt_ms"]
    play = p.startswith("play")
    errs = d["errors_total"]
    if errs:
        bad.append("%s: %d errors %s" % (p, errs, json.dumps(d["errors"])))
    if play and d["moves_confirmed_window"] == 0:
        bad.append("%s: no move confirmed in the window" % p)
    if c["up"] < c["planned"]:
        bad.append("%s: %d of %d connections came up" % (p, c["up"], c["planned"]))
    if (not play or p == "play+many") and c["idle_open_at_end"] < d["idle"]:
        bad.append("%s: only %d of %d idle connections were still open at the end" % (p, c["idle_open_at_end"], d["idle"]))
    bots = "-"
    if d["search_rooms"]:
        bots = "%s%% run=%s" % (f(d["search_busy_pct"], "%.0f"), d.get("bot_jobs_running_mid", "?"))
    if p == "play":
        ok = d["moves_per_s"] >= 30000 and rtt["p99"] < 20
        tgt = ">=30000/s, p99<20ms: %s" % ("MET" if ok else "MISSED")
        if tcp_mps:
            tgt += " (x%.2f of tcp)" % (d["moves_per_s"] / tcp_mps)
    elif p == "play+many":
        if base_p99:
            ratio = rtt["p99"] / base_p99 if base_p99 > 0 else 0
            tgt = "p99 x%.2f of play beside %d idle (<=1.5): %s" % (ratio, d["idle"], "MET" if ratio <= 1.5 else "MISSED")
        else:
            tgt = "p99 <= 1.5x play's (play not run)"
        if many_run < many:
            tgt += "; BLOCKED at %d of %d idle (open files: %s)" % (many_run, many, nofile)
    elif p == "many":
        # Targets for --many connections; with fewer (the open-file limit), the figures per
        # connection are projected to --many and the phase says BLOCKED.
        n = d["idle"]
        rss0 = d.get("server_rss_start_mib", -1)
        rss, cpu, conn_s = d["server_rss_mib"], d["server_cpu_pct"], c.get("connect_s", -1)
        scale = many / n if n else 0
        if scale > 1 and rss0 >= 0:
            rss = rss0 + (rss - rss0) * scale
            cpu = cpu * scale
            conn_s = conn_s * scale
        ok = (0 <= rss < 1e9 / 1048576 and 0 <= cpu < 5 and 0 <= conn_s < 30 and
              c["idle_open_at_end"] == n)
        what = "%d: RSS %s MiB (<1 GB), CPU %s%% (<5%%), connected in %s s (<30)" % (
            many, f(rss, "%.0f"), f(cpu, "%.1f"), f(conn_s, "%.1f"))
        if scale > 1:
            tgt = "BLOCKED at %d (open files: %s); projected to %s: %s" % (n, nofile, what, "MET" if ok else "MISSED")
        else:
            tgt = "%s: %s" % (what, "MET" if ok else "MISSED")
    elif p == "play+bots":
        if base_p99:
            ratio = rtt["p99"] / base_p99 if base_p99 > 0 else 0
            tgt = "p99 x%.2f of play (<=2): %s" % (ratio, "MET" if ratio <= 2 else "MISSED")
        else:
            tgt = "p99 <= 2x play's (play not run)"
    else:
        ok = 0 <= d["server_rss_mib"] < MB300_MIB and c["idle_open_at_end"] == d["idle"]
        tgt = "<300 MB, all %d connected: %s" % (d["idle"], "MET" if ok else "MISSED")
    nconn = c["up"]
    lines.append((p, str(nconn), f(d["moves_per_s"], "%.0f") if play else "-",
                  f(rtt["p50"], "%.2f") if play else "-", f(rtt["p99"], "%.2f") if play else "-",
                  f(rtt["max"], "%.1f") if play else "-", str(errs),
                  f(d["server_rss_mib"]), "%s (%s)" % (f(d["server_cpu_pct"], "%.0f"), f(d.get("server_loop_cpu_pct"), "%.0f")),
                  f(d["loadgen_cpu_pct"], "%.0f"),
                  bots, tgt))
w = [max(len(str(r[i])) for r in [hdr] + lines) for i in range(len(hdr))]
print("thue-server bench%s, thue.v%d: %d matches (%d connections), %d idle connections, many: %d%s" % (
    " (--quick)" if quick else "", protocol, matches, 2 * matches, idle, many_run,
    "" if many_run == many else " (of %d: the open-file limit is %s)" % (many, nofile)))
for r in [hdr] + lines:
    print("  ".join(str(x).ljust(w[i]) if i < len(hdr) - 1 else str(x) for i, x in enumerate(r)))
if want_json:
    for p in phases:
        print(json.dumps(rows[p]))
if bad:
    print("PROBLEMS:")
    for b in bad:
        print("  " + b)
    sys.exit(1)
EOF
rc=$?
set -e
[ "$FAILED" = 1 ] && rc=1
exit "$rc"
