#!/usr/bin/env bash
# thue.v2 against thue.v1, measured in one run on one machine (docs/bench.md, "thue.v2").
# Each measurement starts a fresh server (--db :memory:, 127.0.0.1, a free port) and runs
# build/tests/load/thue-loadgen against it. Two parts:
#
#   ab     The same play against three set-ups, in turn, round after round:
#            base-v1  the revision before thue.v2 (--base), built in a git worktree of
#                     its own under --work, with thue.v1 clients;
#            head-v1  this tree's server with thue.v1 clients;
#            head-v2  this tree's server with thue.v2 clients.
#          The play: --matches rooms of two load generator players and --spectators
#          spectators each; every connection is held to the server's --rate messages a
#          second, so every set-up is offered the same moves per second, and the rooms
#          are opened over about one match's time (400 moves; at most 30 s), so that
#          their matches do not all end at once. Per run: the
#          bytes a spectator (and a player) receives per move, the server's CPU per move
#          (utime + stime of all its threads over the window, from /proc, divided by the
#          confirmed moves) and the p99 round trip. Reported as ratios to base-v1 and of
#          v2 to v1, from each set-up's median over the rounds; the goal for a
#          spectator's bytes: thue.v2 at most 1/8 of thue.v1's.
#   curve  "Encode once": one room of two players moving as fast as the server answers,
#          with S spectators, for each S of --curve, under thue.v2 and thue.v1 in turn,
#          --curve-rounds times: the server's CPU per move against S (the rounds' median),
#          and per spectator (the slope from the first point). Under thue.v1 every
#          arrival of a spectator is sent to every member of the room, so S arrivals cost
#          S*S/2 whole states before the window opens: a thue.v1 point whose arrivals pass
#          --arrivals-max states is not run but reported BLOCKED, with the set-up's server
#          CPU projected from the largest point that ran. (thue.v2 sends the newcomer its
#          state and the others the count once a second: its points always run.)
#
#   bash scripts/bench-v2.sh                  # both parts, about 6 minutes (and the
#                                             # base's build the first time, about 1)
#   bash scripts/bench-v2.sh --parts ab --rounds 5
#   bash scripts/bench-v2.sh --parts curve --curve 1,100,1000
#
# Options:
#   --parts LIST        ab, curve or ab,curve (default ab,curve)
#   --base REV          the revision before thue.v2 (default 9a35c40)
#   --rounds N          1..20 alternations of the ab part (default 3)
#   --matches N         1..2000 rooms in the ab part (default 300)
#   --spectators N      0..100 spectators per room in the ab part (default 1)
#   --rate N            1..1000 the servers' --rate in the ab part (default 20; --burst is
#                       twice it)
#   --duration S        1..120 seconds measured per run (default 8)
#   --warmup S          0..60 seconds before the window (default 2)
#   --curve LIST        spectators per room of the curve's points (default
#                       1,10,100,1000,10000)
#   --curve-rounds N    1..20 runs of each curve point and protocol (default 3)
#   --arrivals-max N    the most arrival states (S*S/2) a curve point may cost
#                       (default 1000000: S = 1000 runs, 2000 and more do not)
#   --work DIR          where the base's worktree and build go (default
#                       /tmp/thue-bench-v2; a build already there is used again)
#   --build-dir DIR     this tree's build (default build)
#   --no-build          do not build this tree (the base is built when missing)
#   --keep-log          keep the servers' logs and the load generator's reports
#   --json              also print every run's report and the summary as JSON lines
#
# Loopback only; the open-file limit is raised to its hard limit (a point needs S + 100
# descriptors in each process). Exit status: 0 when every run had no error, 1 when one
# failed or had errors, 2 on a bad option.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

PARTS="ab,curve"
BASE=9a35c40
ROUNDS=3
MATCHES=300
SPECTATORS=1
RATE=20
DURATION=8
WARMUP=2
CURVE="1,10,100,1000,10000"
ARRIVALS_MAX=1000000
CURVE_ROUNDS=3
WORK=/tmp/thue-bench-v2
BUILD_DIR=build
BUILD=1
KEEP_LOG=0
JSON=0

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
die_usage() {
  echo "bench-v2.sh: $*" >&2
  usage >&2
  exit 2
}
# int_in NAME VALUE LO HI: VALUE is an integer in LO..HI, or the usage error.
int_in() {
  case "$2" in ''|*[!0-9]*) die_usage "$1 must be an integer in $3..$4" ;; esac
  [ "${#2}" -le 9 ] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] || die_usage "$1 must be an integer in $3..$4"
}

while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) BUILD=0 ;;
    --keep-log) KEEP_LOG=1 ;;
    --json) JSON=1 ;;
    --parts|--base|--rounds|--matches|--spectators|--rate|--duration|--warmup|--curve|--curve-rounds|--arrivals-max|--work|--build-dir)
      [ $# -ge 2 ] || die_usage "$1 needs a value"
      case "$1" in
        --parts) PARTS=$2 ;;
        --base) BASE=$2 ;;
        --rounds) ROUNDS=$2 ;;
        --matches) MATCHES=$2 ;;
        --spectators) SPECTATORS=$2 ;;
        --rate) RATE=$2 ;;
        --duration) DURATION=$2 ;;
        --warmup) WARMUP=$2 ;;
        --curve) CURVE=$2 ;;
        --curve-rounds) CURVE_ROUNDS=$2 ;;
        --arrivals-max) ARRIVALS_MAX=$2 ;;
        --work) WORK=$2 ;;
        --build-dir) BUILD_DIR=$2 ;;
      esac
      shift ;;
    -h|--help) usage; exit 0 ;;
    *) die_usage "unknown option '$1'" ;;
  esac
  shift
done
int_in --rounds "$ROUNDS" 1 20
int_in --matches "$MATCHES" 1 2000
int_in --spectators "$SPECTATORS" 0 100
int_in --rate "$RATE" 1 1000
int_in --duration "$DURATION" 1 120
int_in --warmup "$WARMUP" 0 60
int_in --arrivals-max "$ARRIVALS_MAX" 1 1000000000
int_in --curve-rounds "$CURVE_ROUNDS" 1 20
DO_AB=0
DO_CURVE=0
IFS=',' read -r -a PART_LIST <<< "$PARTS"
[ "${#PART_LIST[@]}" -gt 0 ] || die_usage "--parts is empty"
for p in "${PART_LIST[@]}"; do
  case "$p" in
    ab) DO_AB=1 ;;
    curve) DO_CURVE=1 ;;
    *) die_usage "unknown part '$p' (ab, curve)" ;;
  esac
done
IFS=',' read -r -a CURVE_LIST <<< "$CURVE"
if [ "$DO_CURVE" = 1 ]; then
  [ "${#CURVE_LIST[@]}" -gt 0 ] || die_usage "--curve is empty"
  for s in "${CURVE_LIST[@]}"; do int_in "--curve's points" "$s" 1 100000; done
fi
command -v python3 >/dev/null || { echo "bench-v2.sh: python3 is needed" >&2; exit 1; }

SERVER_BIN=$BUILD_DIR/server/thue-server
LOADGEN_BIN=$BUILD_DIR/tests/load/thue-loadgen
if [ "$BUILD" = 1 ]; then
  if [ -d "$BUILD_DIR" ]; then
    cmake --build "$BUILD_DIR" -j"$(nproc 2>/dev/null || echo 2)" --target thue-server thue-loadgen >/dev/null
  else
    echo "bench-v2.sh: building (scripts/build.sh)..." >&2
    bash scripts/build.sh >/dev/null
  fi
fi
for b in "$SERVER_BIN" "$LOADGEN_BIN"; do
  [ -x "$b" ] || { echo "bench-v2.sh: $b is missing: build first (bash scripts/build.sh)" >&2; exit 1; }
done

# The base: a Release build of its thue-server in a worktree of its own (kept for reruns).
BASE_BIN=""
if [ "$DO_AB" = 1 ]; then
  BASE_SHA=$(git -C "$ROOT" rev-parse --verify --quiet "$BASE^{commit}") ||
    die_usage "--base: '$BASE' is not a revision of this repository"
  mkdir -p "$WORK"
  src="$WORK/src-$BASE_SHA" out="$WORK/build-$BASE_SHA"
  if [ ! -x "$out/server/thue-server" ]; then
    echo "bench-v2.sh: building ${BASE_SHA:0:10} (Release) in $out..." >&2
    if [ ! -d "$src" ]; then
      git -C "$ROOT" worktree add --detach "$src" "$BASE_SHA" >/dev/null 2>&1 ||
        { echo "bench-v2.sh: cannot make a worktree of $BASE_SHA at $src" >&2; exit 1; }
    fi
    { cmake -S "$src" -B "$out" -DCMAKE_BUILD_TYPE=Release -DTHUE_TESTS=OFF >"$WORK/cmake-$BASE_SHA.log" 2>&1 &&
      cmake --build "$out" -j"$(nproc 2>/dev/null || echo 2)" --target thue-server \
        >"$WORK/build-$BASE_SHA.log" 2>&1; } ||
      { echo "bench-v2.sh: the build of $BASE_SHA failed (see $WORK/build-$BASE_SHA.log)" >&2; exit 1; }
  fi
  BASE_BIN="$out/server/thue-server"
fi

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
NOFILE=$(ulimit -n)

OUT=$(mktemp -d "${TMPDIR:-/tmp}/thue-bench-v2.XXXXXX")
SERVER_PID=""
LOADGEN_PID=""
FAILED=0

stop_server() {
  [ -n "$SERVER_PID" ] || return 0
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.05
  done
  kill -KILL "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}
# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() {
  if [ -n "$LOADGEN_PID" ]; then
    kill -TERM "$LOADGEN_PID" 2>/dev/null || true
    wait "$LOADGEN_PID" 2>/dev/null || true
  fi
  stop_server
  if [ "$KEEP_LOG" = 1 ]; then
    echo "bench-v2.sh: logs and reports kept in $OUT" >&2
  else
    rm -rf "$OUT"
  fi
}
trap cleanup EXIT
trap 'echo "bench-v2.sh: interrupted" >&2; exit 130' INT TERM

# start_server BIN LOG FLAG...: a fresh server; sets SERVER_PID and SERVER_PORT. The flags
# an older server does not know are left out (its --help says which it has).
start_server() {
  local bin=$1 log=$2
  shift 2
  local help extra=()
  help=$("$bin" --help 2>/dev/null || true)
  [[ $help == *--room-rate-per-ip* ]] && extra+=(--room-rate-per-ip 1000000)
  # The exact reviews and the puzzles' generation run on the worker pool in the
  # background (puzzles from 10 s after start): their CPU is not the moves'.
  [[ $help == *--reviews* ]] && extra+=(--reviews 0)
  [[ $help == *--puzzles* ]] && extra+=(--puzzles 0)
  : >"$log"
  "$bin" --port 0 --bind 127.0.0.1 --db :memory: --log-level warn \
    --max-connections-per-ip 1000000 --max-rooms 100000 "${extra[@]}" "$@" >"$log" 2>&1 &
  SERVER_PID=$!
  SERVER_PORT=""
  for _ in $(seq 1 200); do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "bench-v2.sh: the server died at start; its log:" >&2
      tail -n 20 "$log" >&2
      SERVER_PID=""
      return 1
    fi
    SERVER_PORT=$(sed -n 's|^thue-server listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log" | head -n 1)
    [ -n "$SERVER_PORT" ] && return 0
    sleep 0.05
  done
  echo "bench-v2.sh: the server did not say its port in 10 s" >&2
  return 1
}

# run NAME BIN "SERVER FLAGS" LOADGEN FLAG...: one measurement; its report in $OUT/NAME.json
# (or a line saying why there is none).
run() {
  local name=$1 bin=$2 sflags=$3
  shift 3
  local out="$OUT/$name.json" err="$OUT/$name.err"
  # shellcheck disable=SC2086  # the server's flags are words
  if ! start_server "$bin" "$OUT/$name.server.log" $sflags; then
    echo "{\"failed\":\"the server did not start\"}" >"$out"
    FAILED=1
    return
  fi
  local rc=0
  "$LOADGEN_BIN" --server "ws://127.0.0.1:$SERVER_PORT/ws" --server-pid "$SERVER_PID" --json "$@" \
    >"$out.tmp" 2>"$err" &
  LOADGEN_PID=$!
  wait "$LOADGEN_PID" || rc=$?
  LOADGEN_PID=""
  stop_server
  if [ "$rc" -ge 2 ] || [ ! -s "$out.tmp" ]; then
    echo "bench-v2.sh: $name: thue-loadgen exit $rc:" >&2
    tail -n 5 "$err" >&2
    echo "{\"failed\":\"thue-loadgen exit $rc\"}" >"$out"
    FAILED=1
    return
  fi
  mv "$out.tmp" "$out"
}

if [ "$DO_AB" = 1 ]; then
  AB_SERVER="--rate $RATE --burst $((2 * RATE))"
  # A match is about 400 moves, each player making one at most every 1 / (0.97 * rate) s
  # (the load generator keeps 3% under the server's bucket).
  AB_CONNECT_RATE=$(python3 -c "
ramp = min(30.0, max(1.0, 400 / (2 * 0.97 * $RATE)))
print(max(1, round($MATCHES * (2 + $SPECTATORS) / ramp)))")
  for round in $(seq 1 "$ROUNDS"); do
    for setup in base-v1 head-v1 head-v2; do
      echo "bench-v2.sh: ab round $round: $setup..." >&2
      bin=$SERVER_BIN
      [ "$setup" = base-v1 ] && bin=$BASE_BIN
      run "ab-$setup-$round" "$bin" "$AB_SERVER" --protocol "${setup#*-v}" --matches "$MATCHES" \
        --spectators "$SPECTATORS" --connect-rate "$AB_CONNECT_RATE" --warmup "$WARMUP" --duration "$DURATION" \
        --seed "$round"
    done
  done
fi

if [ "$DO_CURVE" = 1 ]; then
  # As fast as the server answers; room for the arrivals' backlog of the largest point.
  CURVE_SERVER="--rate 10000 --burst 10000 --send-max-kib 1048576 --send-total-max-mib 16384"
  for s in "${CURVE_LIST[@]}"; do
    if [ "$NOFILE" != unlimited ] && [ $((s + 100)) -gt "$NOFILE" ]; then
      for proto in 2 1; do
        echo "{\"blocked\":\"open files: $NOFILE\",\"spectators\":$s}" >"$OUT/curve-$s-v$proto-1.json"
      done
      continue
    fi
    # thue.v1 tells every member of each arrival (S*S/2 whole states); thue.v2 tells the
    # newcomer alone, and the others the count once a second.
    protos="2 1"
    if [ $((s * (s - 1) / 2)) -gt "$ARRIVALS_MAX" ]; then
      echo "{\"blocked\":\"arrivals\",\"spectators\":$s}" >"$OUT/curve-$s-v1-1.json"
      protos="2"
    fi
    for round in $(seq 1 "$CURVE_ROUNDS"); do
      for proto in $protos; do
        echo "bench-v2.sh: curve: $s spectators, thue.v$proto, round $round..." >&2
        run "curve-$s-v$proto-$round" "$SERVER_BIN" "$CURVE_SERVER" --protocol "$proto" --matches 1 \
          --spectators "$s" --connect-rate 5000 --warmup 1 --duration "$DURATION" --seed "$round"
      done
    done
  done
fi

# The report; it decides the exit status (errors, no moves).
set +e
python3 - "$OUT" "$DO_AB" "$DO_CURVE" "$ROUNDS" "$JSON" "$BASE" "$MATCHES" "$SPECTATORS" "$RATE" \
  "$CURVE" "$ARRIVALS_MAX" "$CURVE_ROUNDS" <<'EOF'
import json, os, sys
out, do_ab, do_curve, rounds, want_json, base = sys.argv[1], sys.argv[2] == "1", sys.argv[3] == "1", int(sys.argv[4]), sys.argv[5] == "1", sys.argv[6]
matches, spectators, rate, curve, arrivals_max = int(sys.argv[7]), int(sys.argv[8]), int(sys.argv[9]), [int(x) for x in sys.argv[10].split(",")], int(sys.argv[11])
curve_rounds = int(sys.argv[12])

def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
bad = []
summary = {}

def load(name):
    try:
        d = json.load(open(os.path.join(out, name + ".json")))
    except Exception as e:
        d = {"failed": "no report (%s)" % e}
    if want_json:
        print(json.dumps(dict(d, run=name)))
    if "failed" in d:
        bad.append("%s: %s" % (name, d["failed"]))
    elif "blocked" not in d:
        if d["errors_total"]:
            bad.append("%s: %d errors %s" % (name, d["errors_total"], json.dumps(d["errors"])))
        if d["moves_confirmed_window"] == 0:
            bad.append("%s: no move confirmed in the window" % name)
    return d

def ok(d):
    return "failed" not in d and "blocked" not in d and d["moves_confirmed_window"] > 0

if do_ab:
    setups = ["base-v1", "head-v1", "head-v2"]
    runs = {s: [load("ab-%s-%d" % (s, r)) for r in range(1, rounds + 1)] for s in setups}
    print("ab: %d rooms of 2 players and %d spectator(s), every connection at most %d messages/s (%s = %s)" % (
        matches, spectators, rate, "base", base))
    print("  %-8s %5s %9s %12s %12s %14s %10s %8s" % ("setup", "round", "moves/s", "spect B/move", "player B/move",
                                                   "srv CPU us/move", "p99 ms", "errors"))
    vals = {s: {"moves": [], "spect_bytes": [], "player_bytes": [], "cpu": [], "p99": []} for s in setups}
    for r in range(rounds):
        for s in setups:
            d = runs[s][r]
            if not ok(d):
                print("  %-8s %5d  FAILED: %s" % (s, r + 1, d.get("failed", "no move")))
                continue
            sp, pl = d["bytes_per_move"]["spectator"], d["bytes_per_move"]["player"]
            cpu, p99 = d["server_cpu_us_per_move"], d["rtt_ms"]["p99"]
            print("  %-8s %5d %9.0f %12.1f %12.1f %14.2f %10.3f %8d" % (s, r + 1, d["moves_per_s"], sp, pl, cpu, p99,
                                                                       d["errors_total"]))
            for k, v in (("moves", d["moves_per_s"]), ("spect_bytes", sp), ("player_bytes", pl), ("cpu", cpu),
                         ("p99", p99)):
                vals[s][k].append(v)
    if all(len(vals[s]["cpu"]) == rounds for s in setups):
        med = {s: {k: median(v) for k, v in vals[s].items()} for s in setups}
        ratio = lambda a, b, k: med[a][k] / med[b][k] if med[b][k] > 0 else float("nan")
        goal = ratio("head-v2", "head-v1", "spect_bytes")
        print("ratios of the medians over %d rounds:" % rounds)
        print("  spectator bytes/move  v2/v1 %.3f (1/%.1f; goal <= 1/8: %s)   head-v1/base-v1 %.3f" % (
            goal, 1 / goal, "MET" if goal <= 0.125 else "MISSED", ratio("head-v1", "base-v1", "spect_bytes")))
        print("  player bytes/move     v2/v1 %.3f" % ratio("head-v2", "head-v1", "player_bytes"))
        print("  server CPU/move       head-v1/base-v1 %.3f   head-v2/base-v1 %.3f   head-v2/head-v1 %.3f" % (
            ratio("head-v1", "base-v1", "cpu"), ratio("head-v2", "base-v1", "cpu"), ratio("head-v2", "head-v1", "cpu")))
        print("  p99 round trip        head-v1/base-v1 %.3f   head-v2/base-v1 %.3f   head-v2/head-v1 %.3f" % (
            ratio("head-v1", "base-v1", "p99"), ratio("head-v2", "base-v1", "p99"), ratio("head-v2", "head-v1", "p99")))
        summary["ab"] = {"medians": med, "spectator_bytes_v2_over_v1": round(goal, 4),
                         "cpu_head_v1_over_base": round(ratio("head-v1", "base-v1", "cpu"), 4),
                         "cpu_head_v2_over_base": round(ratio("head-v2", "base-v1", "cpu"), 4),
                         "cpu_v2_over_v1": round(ratio("head-v2", "head-v1", "cpu"), 4),
                         "p99_head_v1_over_base": round(ratio("head-v1", "base-v1", "p99"), 4),
                         "p99_head_v2_over_base": round(ratio("head-v2", "base-v1", "p99"), 4),
                         "p99_v2_over_v1": round(ratio("head-v2", "head-v1", "p99"), 4)}

if do_curve:
    if do_ab:
        print()
    print("curve: one room, two players as fast as the server answers, S spectators; medians of %d rounds" % curve_rounds)
    print("  %7s %6s %9s %15s %17s %17s %13s %9s %9s %13s" % (
        "S", "proto", "moves/s", "srv CPU us/move", "(runs' min-max)", "us/spectator/move", "spect B/move", "p99 ms",
        "set-up s", "set-up CPU s"))
    first = {}
    largest = None
    setup0 = None
    points = []
    for s in curve:
        row = {"spectators": s}
        for proto in (2, 1):
            d = load("curve-%d-v%d-1" % (s, proto))
            if "blocked" in d:
                if d["blocked"] == "arrivals":
                    msg = "BLOCKED: its arrivals are %d whole states (--arrivals-max %d)" % (s * (s - 1) // 2, arrivals_max)
                    if largest and setup0 is not None:
                        ls, lcpu = largest
                        f = (s * (s - 1)) / (ls * (ls - 1))
                        msg += "; its set-up projected from S=%d's: %.0f s of server CPU" % (
                            ls, setup0 + (lcpu - setup0) * f)
                else:
                    msg = "BLOCKED: " + d["blocked"]
                print("  %7d %6s  %s" % (s, "v%d" % proto, msg))
                row["v%d" % proto] = {"blocked": msg}
                continue
            ds = [d] + [load("curve-%d-v%d-%d" % (s, proto, r)) for r in range(2, curve_rounds + 1)]
            good = [x for x in ds if ok(x)]
            if len(good) < len(ds):
                print("  %7d %6s  FAILED: %d of %d runs" % (s, "v%d" % proto, len(ds) - len(good), len(ds)))
                continue
            m = lambda f: median([f(x) for x in good])
            cpu = m(lambda x: x["server_cpu_us_per_move"])
            if proto not in first:
                first[proto] = (s, cpu)
            fs, fcpu = first[proto]
            slope = (cpu - fcpu) / (s - fs) if s > fs else None
            sp = m(lambda x: x["bytes_per_move"]["spectator"])
            setup_s, setup_cpu = m(lambda x: x["setup_s"]), m(lambda x: x["setup_server_cpu_s"])
            mps, p99 = m(lambda x: x["moves_per_s"]), m(lambda x: x["rtt_ms"]["p99"])
            runs_cpu = [x["server_cpu_us_per_move"] for x in good]
            print("  %7d %6s %9.0f %15.1f %17s %17s %13.1f %9.3f %9.1f %13.2f" % (
                s, "v%d" % proto, mps, cpu, "%.1f-%.1f" % (min(runs_cpu), max(runs_cpu)),
                "-" if slope is None else "%.2f" % slope, sp, p99, setup_s, setup_cpu))
            row["v%d" % proto] = {"moves_per_s": mps, "server_cpu_us_per_move": cpu,
                                  "server_cpu_us_per_move_runs": [x["server_cpu_us_per_move"] for x in good],
                                  "us_per_spectator_per_move": None if slope is None else round(slope, 3),
                                  "spectator_bytes_per_move": sp, "p99_ms": p99,
                                  "setup_s": setup_s, "setup_server_cpu_s": setup_cpu}
            if proto == 1 and s == 1:
                setup0 = setup_cpu  # a set-up without arrivals to speak of
            if proto == 1 and s >= 100 and setup0 is not None and setup_cpu > setup0:
                largest = (s, setup_cpu)  # thue.v1's arrivals' part grows as S*(S-1)
        v1, v2 = row.get("v1", {}), row.get("v2", {})
        if "server_cpu_us_per_move" in v1 and "server_cpu_us_per_move" in v2:
            row["cpu_v2_over_v1"] = round(v2["server_cpu_us_per_move"] / v1["server_cpu_us_per_move"], 4)
            print("  %7d  v2/v1: server CPU per move %.3f, spectator bytes per move %.3f" % (
                s, row["cpu_v2_over_v1"], v2["spectator_bytes_per_move"] / v1["spectator_bytes_per_move"]))
        points.append(row)
    summary["curve"] = points

if want_json:
    print(json.dumps(summary))
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
