#!/usr/bin/env bash
# The cluster bench (docs/bench.md, "Several nodes"): one node on SQLite (A) against three
# nodes on PostgreSQL + Redis (B), the same load in the same run, in alternating rounds,
# on this machine over loopback. More nodes on the same cores cannot be faster: the
# honest figure is what a move and a match start cost in CPU, summed over every process
# that serves them (the nodes, and in B Redis and every PostgreSQL process), as B/A.
#
#   bash scripts/bench-cluster.sh               # 3 rounds, 10 s windows (~6 minutes)
#   bash scripts/bench-cluster.sh --quick       # a smoke test: 1 round, small (~30 s)
#
# Each round runs, for A and for B (the order alternates from round to round, ABBA, so
# that a drift of the machine weighs on both):
#   play    M matches of random legal play (thue-loadgen; square, k 12, limit 100, a
#           finished match followed by a rematch): moves/s, move round trip p50/p99,
#           CPU per move. A: one loadgen on the one node; B: three loadgens of M/3
#           matches, one per node (the same connect rate in all).
#   starts  the same with --limit SHORT (a match of a few moves: 4 at the default 1):
#           matches started per second and CPU per match (its moves included; the
#           report also subtracts the moves at the play phase's CPU per move).
#   quick   scripts/bench-quickmatch.mjs: P pairings through quick match; A both
#           players on the one node, B one on n1 and one on n2 (as a rule the one who
#           waited is `moved` to n2 and resumes there): pairings/s, p50/p99 of a
#           pairing, CPU per pairing; at most 100 s of pairings.
#   idle    N connections that say hello and stay (A: on the one node; B: N/3 a node):
#           the memory each costs (the nodes' RSS; B: and Redis's used_memory, where
#           a session's token and directory entry live), and CPU per connection-second
#           (the nodes' CPU, with the server's default keep-alive, --ping-s 30), also
#           less the background: the same nodes' CPU over 2 s with no connection,
#           just before.
# A node is started afresh for every phase (A: --db on a new SQLite file in the temp
# directory, synchronous=FULL as shipped; B: --node nI --redis --db postgres://); B's
# PostgreSQL and Redis are started once per run (scripts/services.sh) and shared by the
# rounds.
#
# CPU: the run time of every thread (/proc/PID/task/TID/schedstat), sampled once every
# loadgen has begun its window and again just before the first one's ends (the quick
# phase: around the whole run): in A the node; in B the three nodes, Redis, and
# PostgreSQL's postmaster with its children (and those it reaped). The loadgens' own
# CPU is shown apart. CPU per move = that CPU / (the window x the moves/s of all
# loadgens); per match and per pairing alike.
#
# Options:
#   --rounds N            rounds of A and B (default 3)
#   --matches M           concurrent matches of play and starts, in all (default 450;
#                         B: M/3 a node, the remainder to n1)
#   --duration S          measured window of a load, seconds (default 10)
#   --warmup S            warm-up before it (default 3)
#   --short-limit L       the starts phase's length limit (default 1: a match of
#                         4 moves, so that the start and the end weigh most)
#   --idle N              idle connections of the idle phase, in all (default 3000)
#   --pairs P             pairings of the quick phase (default 400)
#   --concurrency C       pairings in flight at once (default 20)
#   --phases LIST         a comma-separated subset of play,starts,quick,idle (default: all)
#   --quick               1 round, 60 matches, 1.5 s windows, 60 pairings, 300 idle
#   --build-dir DIR       where the binaries are (default: build)
#   --server-bin FILE     thue-server (default: DIR/server/thue-server)
#   --loadgen-bin FILE    thue-loadgen (default: DIR/tests/load/thue-loadgen)
#   --no-build            do not build; use the binaries as they are
#   --keep-log            keep the temp directory (logs, reports) and print its path
#   --json                print every phase's report as JSON lines after the table
#   -h, --help            this text
#
# Time: every load is bounded (timeout), and the whole run stops after
# 60 + rounds x (6 x (warm-up + duration + 40) + 2 x 120) seconds at most.
# Exit status: 0 when every phase ran without an error; 1 when a phase failed (errors,
# no move, a node died, a service did not start); 2 on a bad option; 130 on Ctrl-C.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/procs.sh
. scripts/procs.sh

ROUNDS=3
MATCHES=450
DURATION=10
WARMUP=3
SHORT_LIMIT=1
PAIRS=400
CONCURRENCY=20
PHASES="play,starts,quick,idle"
IDLE=3000
QUICK=0
BUILD=1
BUILD_DIR=build
SERVER_BIN=""
LOADGEN_BIN=""
KEEP_LOG=0
JSON=0
CONNECT_RATE=1500

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
die_usage() { echo "bench-cluster.sh: $*" >&2; echo "(bash scripts/bench-cluster.sh --help lists the options)" >&2; exit 2; }
is_uint() { case "$1" in ''|*[!0-9]*) return 1 ;; esac; [ "${#1}" -le 7 ]; }
is_secs() { [[ $1 =~ ^[0-9]{1,4}(\.[0-9]{1,3})?$ ]]; }
in_range() { is_uint "$1" && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }          # in_range V LO HI
secs_in() { is_secs "$1" && python3 -c "import sys; sys.exit(not $2 <= float('$1') <= $3)"; }

EXPLICIT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --no-build) BUILD=0 ;;
    --keep-log) KEEP_LOG=1 ;;
    --json) JSON=1 ;;
    -h|--help) usage; exit 0 ;;
    --rounds|--matches|--idle|--duration|--warmup|--short-limit|--pairs|--concurrency|--phases|--build-dir|--server-bin|--loadgen-bin)
      [ $# -ge 2 ] || die_usage "$1 needs a value"
      v=$2
      case "$1" in
        --rounds) in_range "$v" 1 50 || die_usage "--rounds must be 1..50, not '$v'"; ROUNDS=$v ;;
        --idle) in_range "$v" 3 60000 || die_usage "--idle must be 3..60000, not '$v'"; IDLE=$v ;;
        --matches) in_range "$v" 3 30000 || die_usage "--matches must be 3..30000, not '$v'"; MATCHES=$v ;;
        --duration) secs_in "$v" 1 3600 || die_usage "--duration must be 1..3600 seconds, not '$v'"; DURATION=$v ;;
        --warmup) secs_in "$v" 0 600 || die_usage "--warmup must be 0..600 seconds, not '$v'"; WARMUP=$v ;;
        --short-limit) in_range "$v" 1 10000 || die_usage "--short-limit must be 1..10000, not '$v'"; SHORT_LIMIT=$v ;;
        --pairs) in_range "$v" 1 100000 || die_usage "--pairs must be 1..100000, not '$v'"; PAIRS=$v ;;
        --concurrency) in_range "$v" 1 1000 || die_usage "--concurrency must be 1..1000, not '$v'"; CONCURRENCY=$v ;;
        --phases) PHASES=$v ;;
        --build-dir) BUILD_DIR=$v ;;
        --server-bin) SERVER_BIN=$v ;;
        --loadgen-bin) LOADGEN_BIN=$v ;;
      esac
      EXPLICIT="$EXPLICIT $1"
      shift ;;
    *) die_usage "unknown option '$1'" ;;
  esac
  shift
done
if [ "$QUICK" = 1 ]; then
  # --quick sets what was not given explicitly
  [[ $EXPLICIT == *--rounds* ]] || ROUNDS=1
  [[ $EXPLICIT == *--matches* ]] || MATCHES=60
  [[ $EXPLICIT == *--duration* ]] || DURATION=1.5
  [[ $EXPLICIT == *--warmup* ]] || WARMUP=0.5
  [[ $EXPLICIT == *--pairs* ]] || PAIRS=60
  [[ $EXPLICIT == *--idle* ]] || IDLE=300
  [[ $EXPLICIT == *--concurrency* ]] || CONCURRENCY=10
fi
IFS=',' read -r -a PHASE_LIST <<< "$PHASES"
[ "${#PHASE_LIST[@]}" -ge 1 ] || die_usage "--phases is empty"
for p in "${PHASE_LIST[@]}"; do
  case "$p" in
    play|starts|quick|idle) ;;
    *) die_usage "unknown phase '$p' in --phases (play, starts, quick, idle)" ;;
  esac
done
SERVER_BIN=${SERVER_BIN:-$BUILD_DIR/server/thue-server}
LOADGEN_BIN=${LOADGEN_BIN:-$BUILD_DIR/tests/load/thue-loadgen}
QM_SCRIPT=scripts/bench-quickmatch.mjs

for t in python3 curl redis-server redis-cli; do
  command -v "$t" >/dev/null || { echo "bench-cluster.sh: $t is needed" >&2; exit 1; }
done
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null ||
  { echo "bench-cluster.sh: PostgreSQL's initdb is needed (Debian: apt-get install postgresql)" >&2; exit 1; }
case ",$PHASES," in
  *,quick,*)
    command -v node >/dev/null || { echo "bench-cluster.sh: node is needed for the quick phase" >&2; exit 1; }
    [ -d tests/integration/node_modules/ws ] ||
      { echo "bench-cluster.sh: the quick phase needs the ws package: npm ci --prefix tests/integration" >&2; exit 1; } ;;
esac

if [ "$BUILD" = 1 ]; then
  if [ ! -x "$SERVER_BIN" ] || [ ! -x "$LOADGEN_BIN" ]; then
    echo "bench-cluster.sh: building (scripts/build.sh)..." >&2
    bash scripts/build.sh
  else
    cmake --build "$BUILD_DIR" -j"$(nproc 2>/dev/null || echo 2)" --target thue-server thue-loadgen >/dev/null
  fi
fi
for b in "$SERVER_BIN" "$LOADGEN_BIN"; do
  [ -x "$b" ] || { echo "bench-cluster.sh: $b is missing: build first (bash scripts/build.sh)" >&2; exit 1; }
done
"$SERVER_BIN" --help 2>/dev/null | grep -q -- '--redis' ||
  { echo "bench-cluster.sh: $SERVER_BIN has no --redis: a server built without cluster support" >&2; exit 1; }

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

WORK=$(mktemp -d "${TMPDIR:-/tmp}/thue-bench-cluster.XXXXXX")
# PostgreSQL runs as another user when we are root (scripts/services.sh): it must reach
# its directory under this one.
chmod 755 "$WORK"
SVC="$WORK/svc"
SVC_UP=0
NODE_PIDS=()
LOAD_PIDS=()
FAILED=0
START_S=$SECONDS
BUDGET_S=$(python3 -c "print(int(60 + $ROUNDS * (6 * ($WARMUP + $DURATION + 40) + 2 * 120)))")

# shellcheck disable=SC2317  # called from cleanup (the EXIT trap)
stop_loads() {
  local p
  for p in "${LOAD_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${LOAD_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  LOAD_PIDS=()
}

# Stops the phase's nodes (SIGTERM, then SIGKILL after 5 s). A node that exited on its
# own with an error before it was told to stop is reported by the caller (node_alive).
stop_nodes() {
  stop_pids "bench-cluster.sh: node" 5 "${NODE_PIDS[@]}"
  NODE_PIDS=()
}

# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() {
  stop_loads
  stop_nodes
  if [ "$SVC_UP" = 1 ]; then
    bash scripts/services.sh stop "$SVC" >/dev/null 2>&1 || true
  fi
  if [ "$KEEP_LOG" = 1 ]; then
    echo "bench-cluster.sh: logs and reports kept in $WORK" >&2
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT
trap 'echo "bench-cluster.sh: interrupted" >&2; exit 130' INT TERM

over_budget() {
  if [ $((SECONDS - START_S)) -gt "$BUDGET_S" ]; then
    echo "bench-cluster.sh: over the time budget of ${BUDGET_S} s: stopping" >&2
    return 0
  fi
  return 1
}

# The CPU seconds of the phase's processes, one line:
#   MONOTONIC_S NODES_S REDIS_S PG_S
# Each process's threads' run time from /proc/PID/task/TID/schedstat (nanoseconds: the
# clock ticks of utime+stime are 10 ms, too coarse for short phases). PostgreSQL: the
# postmaster, its live children, and the children it reaped (cutime+cstime, in ticks).
cpu_sample() { # cpu_sample A|B: A counts the node alone (the services idle meanwhile)
  python3 - "$1" "$SVC" "${NODE_PIDS[@]}" <<'EOF'
import os, sys, time
mode, svc, nodes = sys.argv[1], sys.argv[2], [int(p) for p in sys.argv[3:]]
tick = os.sysconf("SC_CLK_TCK")
def stat(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            s = f.read()
    except OSError:
        return None
    r = s[s.rindex(")") + 2:].split()
    # fields 3.. of proc(5): r[0] is the state (3), r[1] the ppid (4), r[13] cutime (16)
    return int(r[1]), (int(r[13]) + int(r[14])) / tick
def own(pid):
    t = 0
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                    t += int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
    except OSError:
        pass
    return t / 1e9
def pidfile(path):
    try:
        return int(open(path).read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
t = time.monotonic()
n = sum(own(p) for p in nodes)
redis = pg = 0.0
rp = pidfile(os.path.join(svc, "redis", "redis.pid")) if mode == "B" else None
if rp:
    redis = own(rp)
pm = pidfile(os.path.join(svc, "pg", "postmaster.pid")) if mode == "B" else None
st = stat(pm) if pm else None
if st:
    pg = own(pm) + st[1]
    for d in os.listdir("/proc"):
        if d.isdigit():
            c = stat(int(d))
            if c and c[0] == pm:
                pg += own(int(d))
print("%.4f %.6f %.6f %.6f" % (t, n, redis, pg))
EOF
}

# Starts one node; appends its PID to NODE_PIDS and sets NODE_PORT (not in a subshell:
# the node must stay this shell's child, to be stopped and measured).
#   start_node LOG NAME(or "") DB
start_node() {
  local log=$1 name=$2 db=$3
  local cl=()
  [ -n "$name" ] && cl=(--node "$name" --redis "$REDIS_URL" --cluster-secret-file "$SVC/cluster.secret")
  : >"$log" # before the server runs: the port is read from it at once
  "$SERVER_BIN" --port 0 --bind 127.0.0.1 --db "$db" --log-level info "${cl[@]}" \
    --max-connections 100000 --max-connections-per-ip 100000 \
    --max-rooms 100000 --max-rooms-per-player 1000 --room-rate-per-ip 1000000 \
    --rate 10000 --burst 10000 --grace-s 5 --room-linger-s 5 --reviews 0 >"$log" 2>&1 &
  local pid=$!
  NODE_PIDS+=("$pid")
  local port="" i
  for i in $(seq 1 300); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "bench-cluster.sh: a node did not start; the end of its log ($log):" >&2
      tail -n 20 "$log" >&2
      return 1
    fi
    port=$(sed -n 's|^thue-server listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log" | head -n 1)
    if [ -n "$port" ] && curl -fsS --max-time 1 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then
      # a node of several: until it has joined the cluster
      if [ -z "$name" ] || grep -q "one of several" "$log"; then
        NODE_PORT=$port
        return 0
      fi
    fi
    sleep 0.05
  done
  echo "bench-cluster.sh: a node did not become ready in 15 s; its log ($log):" >&2
  tail -n 20 "$log" >&2
  return 1
}

nodes_alive() { all_alive "${NODE_PIDS[@]}"; }

# Starts the mode's nodes: sets PORTS (one per node) and NAMES.
start_mode() { # start_mode A|B TAG
  local mode=$1 tag=$2
  PORTS=(); NAMES=()
  if [ "$mode" = A ]; then
    start_node "$WORK/$tag.n.log" "" "$WORK/$tag.db" || return 1
    PORTS=("$NODE_PORT"); NAMES=(single)
  else
    local i
    for i in 1 2 3; do
      start_node "$WORK/$tag.n$i.log" "n$i" "$PG_URL" || return 1
      PORTS+=("$NODE_PORT"); NAMES+=("n$i")
    done
  fi
}

# The memory of the phase's processes, one line: NODES_RSS_KIB REDIS_USED_BYTES (B's
# Redis, from INFO memory; 0 in A).
mem_sample() { # mem_sample A|B
  local rss=0 p v redis=0
  for p in "${NODE_PIDS[@]}"; do
    v=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$p/status" 2>/dev/null || true)
    rss=$((rss + ${v:-0}))
  done
  if [ "$1" = B ]; then
    redis=$(redis-cli -p "$(cat "$SVC/redis.port")" info memory 2>/dev/null |
      tr -d '\r' | awk -F: '$1 == "used_memory" { print $2 }')
  fi
  echo "$rss ${redis:-0}"
}

# One load phase (play, starts or idle) of one mode: the loadgens, the CPU over the
# window; for idle, the memory before the connections and once they are all up.
#   load_phase A|B ROUND PHASE LIMIT
load_phase() {
  local mode=$1 round=$2 phase=$3 limit=$4
  local tag="r$round.$phase.$mode" out="$WORK/r$round.$phase.$mode.json"
  echo "bench-cluster.sh: round $round, $phase, $mode..." >&2
  if ! start_mode "$mode" "$tag"; then
    stop_nodes
    echo "{\"failed\":\"a node did not start\"}" >"$out"
    FAILED=1
    return
  fi
  local n=${#PORTS[@]} i per rate
  rate=$((CONNECT_RATE / n))
  local files=()
  local bound total=$MATCHES conns=$((2 * MATCHES)) m0 m1=""
  [ "$phase" = idle ] && total=$IDLE && conns=$IDLE
  bound=$(python3 -c "print(int($WARMUP + $DURATION + $conns / $CONNECT_RATE + 30))")
  m0=$(mem_sample "$mode")
  # idle: what the processes use with no connection at all (B: the heartbeats, Redis,
  # PostgreSQL's background), to be taken off the connections' CPU
  local b0="" b1=""
  if [ "$phase" = idle ]; then
    b0=$(cpu_sample "$mode")
    sleep 2
    b1=$(cpu_sample "$mode")
  fi
  for i in $(seq 0 $((n - 1))); do
    per=$((total / n))
    [ "$i" = 0 ] && per=$((per + total % n))
    local what=(--matches "$per" --limit "$limit" --warmup "$WARMUP")
    [ "$phase" = idle ] && what=(--matches 0 --idle "$per" --warmup 0)
    timeout -k 5 "$bound" "$LOADGEN_BIN" --server "ws://127.0.0.1:${PORTS[$i]}/ws" \
      --server-pid "${NODE_PIDS[$i]}" "${what[@]}" \
      --duration "$DURATION" --connect-rate "$rate" --json -v \
      >"$WORK/$tag.lg$i.json" 2>"$WORK/$tag.lg$i.log" &
    LOAD_PIDS+=("$!")
    files+=("$WORK/$tag.lg$i.log")
  done
  # The CPU window: from the moment every loadgen measures to just before the first
  # one's window ends.
  local t_wait=$((SECONDS + bound)) all f c0="" c1=""
  while [ $SECONDS -lt $t_wait ]; do
    all=1
    for f in "${files[@]}"; do grep -q "measuring for" "$f" 2>/dev/null || { all=0; break; }; done
    if [ "$all" = 1 ]; then
      c0=$(cpu_sample "$mode")
      m1=$(mem_sample "$mode")
      break
    fi
    local alive=0 p
    for p in "${LOAD_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 1 ] || break
    sleep 0.02
  done
  if [ -n "$c0" ]; then
    # the loadgens' windows begin within a poll of each other; stop 0.3 s short
    sleep "$(python3 -c "print(max(0.2, $DURATION - 0.3 - 0.05 * $n))")"
    c1=$(cpu_sample "$mode")
  fi
  local rc=0 p
  for p in "${LOAD_PIDS[@]}"; do
    local s=0
    wait "$p" || s=$?
    [ "$s" -gt "$rc" ] && rc=$s
  done
  LOAD_PIDS=()
  local died=0
  nodes_alive || died=1
  stop_nodes
  python3 - "$mode" "$round" "$phase" "$limit" "$rc" "$died" "$c0" "$c1" "$out" "$m0" "$m1" "$b0" "$b1" "${NAMES[@]}" <<'EOF'
import json, sys
mode, rnd, phase, limit, rc, died, c0, c1, out, m0, m1, b0, b1 = sys.argv[1:14]
names = sys.argv[14:]
tag = "%s/r%s.%s.%s" % (out.rsplit("/", 1)[0], rnd, phase, mode)
d = {"mode": mode, "round": int(rnd), "phase": phase, "limit": int(limit), "nodes": names, "loadgens": []}
problems = []
for i, _ in enumerate(names):
    try:
        d["loadgens"].append(json.load(open("%s.lg%d.json" % (tag, i))))
    except Exception as e:
        problems.append("loadgen %d: no report (%s)" % (i, e))
if int(rc) >= 2 or (int(rc) == 1 and not d["loadgens"]):
    problems.append("a loadgen failed (exit %s)" % rc)
if int(died):
    problems.append("a node died during the load")
if not c0 or not c1:
    problems.append("no CPU window (a loadgen never began measuring)")
else:
    a, b = [list(map(float, x.split())) for x in (c0, c1)]
    d["cpu_window_s"] = b[0] - a[0]
    d["cpu_s"] = {"nodes": b[1] - a[1], "redis": b[2] - a[2], "pg": b[3] - a[3]}
lg = d["loadgens"]
if b0 and b1:
    a, b = [list(map(float, x.split())) for x in (b0, b1)]
    d["background_window_s"] = b[0] - a[0]
    d["background_cpu_s"] = {"nodes": b[1] - a[1], "redis": b[2] - a[2], "pg": b[3] - a[3]}
if m0 and m1:
    a, b = [list(map(int, x.split())) for x in (m0, m1)]
    d["mem_delta"] = {"nodes_rss_kib": b[0] - a[0], "redis_bytes": b[1] - a[1]}
if lg and phase == "idle":
    d["connections_up"] = sum(x["connections"]["up"] for x in lg)
    d["idle_open_at_end"] = sum(x["connections"]["idle_open_at_end"] for x in lg)
    d["errors_total"] = sum(x["errors_total"] for x in lg)
    d["loadgen_cpu_pct"] = sum(max(0, x["loadgen_cpu_pct"]) for x in lg)
    planned = sum(x["idle"] for x in lg)
    if d["idle_open_at_end"] < planned:
        problems.append("%d of %d idle connections open at the end" % (d["idle_open_at_end"], planned))
    if d["errors_total"]:
        problems.append("%d errors: %s" % (d["errors_total"], "; ".join(json.dumps(x["errors"]) for x in lg if x["errors_total"])))
elif lg:
    d["moves_per_s"] = sum(x["moves_per_s"] for x in lg)
    d["matches_per_s"] = sum(x["matches_finished_window"] / x["window_s"] for x in lg if x["window_s"] > 0)
    d["errors_total"] = sum(x["errors_total"] for x in lg)
    d["rtt_p50_ms"] = max(x["rtt_ms"]["p50"] for x in lg)
    d["rtt_p99_ms"] = max(x["rtt_ms"]["p99"] for x in lg)
    d["rtt_max_ms"] = max(x["rtt_ms"]["max"] for x in lg)
    d["loadgen_cpu_pct"] = sum(max(0, x["loadgen_cpu_pct"]) for x in lg)
    d["connections_up"] = sum(x["connections"]["up"] for x in lg)
    if d["errors_total"]:
        problems.append("%d errors: %s" % (d["errors_total"], "; ".join(json.dumps(x["errors"]) for x in lg if x["errors_total"])))
    if d["moves_per_s"] <= 0:
        problems.append("no move confirmed in the window")
if problems:
    d["failed"] = "; ".join(problems)
json.dump(d, open(out, "w"))
EOF
  if python3 -c "import json,sys; sys.exit('failed' in json.load(open('$out')))"; then :; else
    FAILED=1
    python3 -c "import json; print('bench-cluster.sh: ' + json.load(open('$out'))['failed'])" >&2
  fi
}

# The quick phase of one mode.
quick_phase() { # quick_phase A|B ROUND
  local mode=$1 round=$2
  local tag="r$round.quick.$mode" out="$WORK/r$round.quick.$mode.json"
  echo "bench-cluster.sh: round $round, quick, $mode..." >&2
  if ! start_mode "$mode" "$tag"; then
    stop_nodes
    echo "{\"failed\":\"a node did not start\"}" >"$out"
    FAILED=1
    return
  fi
  local args=()
  if [ "$mode" = A ]; then
    args=(--first "ws://127.0.0.1:${PORTS[0]}/ws" --second "ws://127.0.0.1:${PORTS[0]}/ws")
  else
    args=(--first "ws://127.0.0.1:${PORTS[0]}/ws" --second "ws://127.0.0.1:${PORTS[1]}/ws")
    local i
    for i in 0 1 2; do args+=(--node "${NAMES[$i]}=ws://127.0.0.1:${PORTS[$i]}/ws"); done
  fi
  local c0 c1 rc=0
  c0=$(cpu_sample "$mode")
  timeout -k 5 120 node "$QM_SCRIPT" "${args[@]}" --pairs "$PAIRS" --concurrency "$CONCURRENCY" \
    --time-limit 100 --json >"$WORK/$tag.qm.json" 2>"$WORK/$tag.qm.log" &
  LOAD_PIDS=("$!")
  wait "${LOAD_PIDS[0]}" || rc=$?
  LOAD_PIDS=()
  c1=$(cpu_sample "$mode")
  local died=0
  nodes_alive || died=1
  stop_nodes
  python3 - "$mode" "$round" "$rc" "$died" "$c0" "$c1" "$WORK/$tag.qm.json" "$WORK/$tag.qm.log" "$out" <<'EOF'
import json, sys
mode, rnd, rc, died, c0, c1, qm, qmlog, out = sys.argv[1:10]
d = {"mode": mode, "round": int(rnd), "phase": "quick"}
problems = []
try:
    d["qm"] = json.load(open(qm))
except Exception as e:
    problems.append("bench-quickmatch.mjs: no report (exit %s): %s" % (rc, open(qmlog).read()[-400:].strip()))
if int(died):
    problems.append("a node died during the load")
a, b = [list(map(float, x.split())) for x in (c0, c1)]
d["cpu_window_s"] = b[0] - a[0]
d["cpu_s"] = {"nodes": b[1] - a[1], "redis": b[2] - a[2], "pg": b[3] - a[3]}
if "qm" in d:
    q = d["qm"]
    if q["errors_total"]:
        problems.append("%d errors: %s" % (q["errors_total"], json.dumps(q["errors"])))
    if q["pairs_done"] == 0:
        problems.append("no pairing completed")
if problems:
    d["failed"] = "; ".join(problems)
json.dump(d, open(out, "w"))
EOF
  if python3 -c "import json,sys; sys.exit('failed' in json.load(open('$out')))"; then :; else
    FAILED=1
    python3 -c "import json; print('bench-cluster.sh: ' + json.load(open('$out'))['failed'])" >&2
  fi
}

# B's services, once for the run.
echo "bench-cluster.sh: starting PostgreSQL and Redis in $SVC..." >&2
SVC_UP=1
PG_URL=$(bash scripts/services.sh postgres "$SVC" | sed -n 's/^export THUE_TEST_PG=//p') ||
  { echo "bench-cluster.sh: PostgreSQL did not start" >&2; exit 1; }
REDIS_URL=$(bash scripts/services.sh redis "$SVC" | sed -n 's/^export THUE_TEST_REDIS=//p') ||
  { echo "bench-cluster.sh: Redis did not start" >&2; exit 1; }
if [ -z "$PG_URL" ] || [ -z "$REDIS_URL" ]; then
  echo "bench-cluster.sh: the services did not start" >&2
  exit 1
fi
# The cluster secret B's nodes share (docs/cluster.md, "Security").
(umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >"$SVC/cluster.secret")

for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then ORDER=(A B); else ORDER=(B A); fi
  for p in "${PHASE_LIST[@]}"; do
    for m in "${ORDER[@]}"; do
      over_budget && { FAILED=1; break 3; }
      case "$p" in
        play) load_phase "$m" "$r" play 100 ;;
        starts) load_phase "$m" "$r" starts "$SHORT_LIMIT" ;;
        idle) load_phase "$m" "$r" idle 100 ;;
        quick) quick_phase "$m" "$r" ;;
      esac
    done
  done
done

set +e
python3 - "$WORK" "$ROUNDS" "$JSON" "$MATCHES" "$SHORT_LIMIT" "$PAIRS" "$CONCURRENCY" "$DURATION" "$IDLE" "${PHASE_LIST[@]}" <<'EOF'
import json, os, sys
work, rounds, want_json, matches, short, pairs, conc, duration, idle = sys.argv[1:10]
rounds, want_json = int(rounds), int(want_json)
phases = sys.argv[10:]
rows, bad = [], []
data = {}
for r in range(1, rounds + 1):
    for p in phases:
        for m in ("A", "B"):
            path = os.path.join(work, "r%d.%s.%s.json" % (r, p, m))
            try:
                d = json.load(open(path))
            except Exception:
                continue
            data[(r, p, m)] = d
            if "failed" in d:
                bad.append("round %d %s %s: %s" % (r, p, m, d["failed"]))

def f(x, fmt):
    return "-" if x is None else fmt % x

def cpu_total(d):
    c = d.get("cpu_s")
    return None if c is None else c["nodes"] + c["redis"] + c["pg"]

def per(d, rate_key):
    """CPU microseconds per unit (move, match) over the CPU window: CPU / (window x rate)."""
    c = cpu_total(d)
    rate = d.get(rate_key)
    if c is None or not rate or d.get("cpu_window_s", 0) <= 0:
        return None
    return 1e6 * c / (d["cpu_window_s"] * rate)

def split(d, rate_key):
    c, rate = d.get("cpu_s"), d.get(rate_key)
    if c is None or not rate or d.get("cpu_window_s", 0) <= 0:
        return "-"
    k = 1e6 / (d["cpu_window_s"] * rate)
    return "%.0f/%.0f/%.0f" % (c["nodes"] * k, c["redis"] * k, c["pg"] * k)

print("thue-server cluster bench: A = 1 node on SQLite, B = 3 nodes on PostgreSQL + Redis; "
      "%d round(s), %s matches in all, %s s windows; starts: --limit %s; quick: %s pairings, %s at once; idle: %s connections"
      % (rounds, matches, duration, short, pairs, conc, idle))
print("CPU: the nodes + Redis + PostgreSQL over the window; split: per move, match or pairing in us (nodes/redis/pg);")
print("idle: the memory a connection added (the nodes' RSS / Redis's used_memory); lg: the loadgens' CPU% in all;")
print("p50/p99 of B: the worst of its three loadgens")
hdr = ("round", "phase", "mode", "conns", "moves/s", "matches/s", "p50 ms", "p99 ms", "srv CPU%", "CPU us/move", "CPU us/match", "split us", "lg CPU%", "errors")
for r in range(1, rounds + 1):
    for p in phases:
        for m in ("A", "B"):
            d = data.get((r, p, m))
            if d is None:
                continue
            if "failed" in d and "loadgens" not in d and "qm" not in d:
                rows.append((str(r), p, m) + ("-",) * 10 + ("FAILED",))
                continue
            cpu_pct = None
            if cpu_total(d) is not None and d.get("cpu_window_s"):
                cpu_pct = 100 * cpu_total(d) / d["cpu_window_s"]
            if p == "quick":
                q = d.get("qm", {})
                lat = q.get("latency_ms", {})
                rows.append((str(r), p, m, f(q.get("connections"), "%d"), "-", f(q.get("pairs_per_s"), "%.1f"),
                             f(lat.get("p50"), "%.2f"), f(lat.get("p99"), "%.2f"), f(cpu_pct, "%.0f"), "-",
                             f(1e6 * cpu_total(d) / q["pairs_done"] if q.get("pairs_done") and cpu_total(d) is not None else None, "%.0f"),
                             "-" if not q.get("pairs_done") or "cpu_s" not in d else "%.0f/%.0f/%.0f" % tuple(1e6 * d["cpu_s"][k] / q["pairs_done"] for k in ("nodes", "redis", "pg")),
                             "-", f(q.get("errors_total"), "%d")))
                continue
            if p == "idle":
                md = d.get("mem_delta")
                cu = d.get("connections_up")
                memtxt = "-"
                if md and cu:
                    memtxt = "%.1f KiB/%.0f B a conn" % (md["nodes_rss_kib"] / cu, md["redis_bytes"] / cu)
                rows.append((str(r), p, m, f(cu, "%d"), "-", "-", "-", "-", f(cpu_pct, "%.1f"), "-", "-", memtxt,
                             f(d.get("loadgen_cpu_pct"), "%.0f"), f(d.get("errors_total"), "%d")))
                continue
            key = "moves_per_s" if p == "play" else "matches_per_s"
            rows.append((str(r), p, m, f(d.get("connections_up"), "%d"), f(d.get("moves_per_s"), "%.0f"),
                         f(d.get("matches_per_s"), "%.1f"), f(d.get("rtt_p50_ms"), "%.2f"), f(d.get("rtt_p99_ms"), "%.2f"),
                         f(cpu_pct, "%.0f"), f(per(d, "moves_per_s"), "%.1f"),
                         f(per(d, "matches_per_s"), "%.0f") if p == "starts" else "-",
                         split(d, key), f(d.get("loadgen_cpu_pct"), "%.0f"), f(d.get("errors_total"), "%d")))
w = [max(len(str(x[i])) for x in [hdr] + rows) for i in range(len(hdr))]
for x in [hdr] + rows:
    print("  ".join(str(v).ljust(w[i]) for i, v in enumerate(x)).rstrip())

# Sums over the rounds, and B/A.
def ok(d):
    return d is not None and "failed" not in d

def sums(p, m):
    ds = [data.get((r, p, m)) for r in range(1, rounds + 1)]
    ds = [d for d in ds if ok(d)]
    if not ds:
        return None
    s = {"n": len(ds)}
    if p == "idle":
        conns = sum(d["connections_up"] for d in ds)
        s["rss_kib_conn"] = sum(d["mem_delta"]["nodes_rss_kib"] for d in ds if "mem_delta" in d) / conns
        s["redis_b_conn"] = sum(d["mem_delta"]["redis_bytes"] for d in ds if "mem_delta" in d) / conns
        # the nodes' CPU only: an idle connection costs Redis and PostgreSQL nothing once
        # it has said hello, and their background (checkpoints, autovacuum after the
        # other phases' writes) would drown the figure
        conn_s = sum(d["cpu_window_s"] * d["connections_up"] for d in ds)
        s["cpu_conn_s"] = 1e6 * sum(d["cpu_s"]["nodes"] for d in ds) / conn_s
        # less the background (the same nodes with no connection, just before)
        bg = [d for d in ds if "background_cpu_s" in d]
        if bg:
            rate = sum(d["background_cpu_s"]["nodes"] for d in bg) / sum(d["background_window_s"] for d in bg)
            s["background_cpu_pct"] = 100 * rate
            s["cpu_conn_s_net"] = 1e6 * sum(d["cpu_s"]["nodes"] - rate * d["cpu_window_s"] for d in ds) / conn_s
        return s
    if p == "quick":
        done = sum(d["qm"]["pairs_done"] for d in ds)
        s["rate"] = done / sum(d["qm"]["wall_s"] for d in ds)
        s["p50"] = sum(d["qm"]["latency_ms"]["p50"] for d in ds) / len(ds)
        s["p99"] = sum(d["qm"]["latency_ms"]["p99"] for d in ds) / len(ds)
        s["cpu_unit"] = 1e6 * sum(cpu_total(d) for d in ds) / done
        return s
    key = "moves_per_s" if p == "play" else "matches_per_s"
    wins = [(d, sum(x["window_s"] for x in d["loadgens"]) / len(d["loadgens"])) for d in ds]
    s["rate"] = sum(d[key] * w for d, w in wins) / sum(w for _, w in wins)
    s["moves"] = sum(d["moves_per_s"] * w for d, w in wins) / sum(w for _, w in wins)
    s["p50"] = sum(d["rtt_p50_ms"] for d in ds) / len(ds)
    s["p99"] = sum(d["rtt_p99_ms"] for d in ds) / len(ds)
    units = sum(d["cpu_window_s"] * d[key] for d in ds)
    s["cpu_unit"] = 1e6 * sum(cpu_total(d) for d in ds) / units
    mv = sum(d["cpu_window_s"] * d["moves_per_s"] for d in ds)
    s["cpu_move"] = 1e6 * sum(cpu_total(d) for d in ds) / mv
    s["units"] = units
    s["moves_in_window"] = mv
    s["cpu"] = sum(cpu_total(d) for d in ds)
    return s

print()
print("over the rounds (rates: sums over the windows; p50/p99: the mean of the rounds'; CPU: summed, then divided)")
summary = {}
lines = [("phase", "figure", "A (1 node, SQLite)", "B (3 nodes, PG + Redis)", "B/A")]
def line(p, name, a, b, fmt):
    ratio = "-" if a in (None, 0) or b is None else "%.2f" % (b / a)
    lines.append((p, name, f(a, fmt), f(b, fmt), ratio))
for p in phases:
    A, B = sums(p, "A"), sums(p, "B")
    summary[p] = {"A": A, "B": B}
    g = lambda s, k: None if s is None else s.get(k)
    if p == "play":
        line(p, "moves/s", g(A, "rate"), g(B, "rate"), "%.0f")
        line(p, "p50 ms", g(A, "p50"), g(B, "p50"), "%.2f")
        line(p, "p99 ms", g(A, "p99"), g(B, "p99"), "%.2f")
        line(p, "CPU us/move", g(A, "cpu_unit"), g(B, "cpu_unit"), "%.1f")
    elif p == "starts":
        line(p, "matches/s", g(A, "rate"), g(B, "rate"), "%.1f")
        line(p, "moves/s", g(A, "moves"), g(B, "moves"), "%.0f")
        line(p, "CPU us/match", g(A, "cpu_unit"), g(B, "cpu_unit"), "%.0f")
        # the start's own cost: the moves of these matches at the play phase's CPU per move
        PA, PB = summary.get("play", {}).get("A"), summary.get("play", {}).get("B")
        def net(S, P):
            if S is None or P is None:
                return None
            return 1e6 * (S["cpu"] - S["moves_in_window"] * P["cpu_unit"] / 1e6) / S["units"]
        if PA is not None or PB is not None:
            line(p, "CPU us/match - moves", net(A, PA), net(B, PB), "%.0f")
    elif p == "idle":
        line(p, "node RSS KiB/conn", g(A, "rss_kib_conn"), g(B, "rss_kib_conn"), "%.2f")
        line(p, "Redis bytes/conn", g(A, "redis_b_conn"), g(B, "redis_b_conn"), "%.0f")
        line(p, "nodes' CPU us/conn/s", g(A, "cpu_conn_s"), g(B, "cpu_conn_s"), "%.3f")
        line(p, "nodes' background CPU%", g(A, "background_cpu_pct"), g(B, "background_cpu_pct"), "%.2f")
        line(p, "nodes' CPU us/conn/s - bg", g(A, "cpu_conn_s_net"), g(B, "cpu_conn_s_net"), "%.3f")
    else:
        line(p, "pairings/s", g(A, "rate"), g(B, "rate"), "%.1f")
        line(p, "p50 ms", g(A, "p50"), g(B, "p50"), "%.2f")
        line(p, "p99 ms", g(A, "p99"), g(B, "p99"), "%.2f")
        line(p, "CPU us/pairing", g(A, "cpu_unit"), g(B, "cpu_unit"), "%.0f")
w = [max(len(str(x[i])) for x in lines) for i in range(5)]
for x in lines:
    print("  ".join(str(v).ljust(w[i]) for i, v in enumerate(x)).rstrip())
if want_json:
    for k in sorted(data):
        print(json.dumps(data[k]))
    print(json.dumps({"summary": summary}))
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
