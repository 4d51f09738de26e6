#!/usr/bin/env bash
# Before and after: builds two revisions of thue-server (Release, in git worktrees of their
# own) and runs the same benches on both, alternately, in one run: `thue bench engine`,
# `thue bench search` and the load bench's `play` phase (scripts/bench.sh). It prints each
# round's figures and, for each bench, the ratio of the second revision to the first
# (above 1: the second is faster). Timings on a shared machine move by up to 3x from day
# to day; alternating in one run is what makes the ratio mean something (docs/bench.md).
#
#   bash scripts/bench-compare.sh                        # 30c38e6 (before the game interface) vs HEAD
#   bash scripts/bench-compare.sh --base v1 --head main --rounds 5
#
# Options:
#   --base REV        the revision measured first (default 30c38e6: the last commit before
#                     the game interface of issue 17)
#   --head REV        the revision compared with it (default HEAD)
#   --rounds N        1..50 alternations (default 3; about 2 minutes each)
#   --benches LIST    a comma-separated subset of engine,search,load,cpu,p99,floor,instr
#                     (default engine,search,load); cpu is the load bench's server CPU
#                     (every thread, user and kernel) per move, as moves per CPU second
#                     (from the load bench's run of the round, made once for cpu, p99
#                     and floor when load is not listed); p99 is that
#                     run's move round trip p99, as 1000 / ms; floor is the kernel's
#                     share of cpu: thue-tcp-ceiling (no server work at all) sending
#                     what that revision's load run sent to the players per move, as
#                     moves per CPU second of its server (a server's cpu cannot pass
#                     it); instr counts the instructions the server's
#                     loop thread runs per move under valgrind's callgrind (one match
#                     at a time, 12 matches of the load generator's play, fixed seed):
#                     a figure the machine's noise does not move (needs valgrind)
#   --work DIR        where the worktrees and builds go (default /tmp/thue-bench-compare);
#                     a revision already built there is not built again
#   --protocol P      the subprotocol the load generator speaks to both servers in the
#                     load, cpu, p99, floor and instr benches: 1 (thue.v1, the default: every revision
#                     speaks it) or 2 (thue.v2: both revisions must have it, 3e646da on);
#                     or B,H: B to the base revision, H to the head (1,2: the wire of
#                     before against thue.v2, what issue 34 measures)
#   --json            also print the summary as one JSON line
#
# The load bench runs the load generator of the working tree for both servers (the same
# client for both), through this checkout's scripts/bench.sh.
# Exit status: 0 when every bench ran, 1 when one failed, 2 on a bad option.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

BASE=30c38e6
HEAD=HEAD
ROUNDS=3
BENCHES="engine,search,load"
WORK=/tmp/thue-bench-compare
JSON=0
PROTOCOL=1

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
die_usage() {
  echo "bench-compare.sh: $*" >&2
  usage >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --json) JSON=1 ;;
    --base|--head|--rounds|--benches|--work|--protocol)
      [ $# -ge 2 ] || die_usage "$1 needs a value"
      case "$1" in
        --base) BASE=$2 ;;
        --head) HEAD=$2 ;;
        --rounds) ROUNDS=$2 ;;
        --benches) BENCHES=$2 ;;
        --work) WORK=$2 ;;
        --protocol) PROTOCOL=$2 ;;
      esac
      shift ;;
    -h|--help) usage; exit 0 ;;
    *) die_usage "unknown option '$1'" ;;
  esac
  shift
done
case "$ROUNDS" in ''|*[!0-9]*) die_usage "--rounds must be 1..50" ;; esac
[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 50 ] || die_usage "--rounds must be 1..50"
case "$PROTOCOL" in
  1|2) PROTO_BASE=$PROTOCOL; PROTO_HEAD=$PROTOCOL ;;
  [12],[12]) PROTO_BASE=${PROTOCOL%,*}; PROTO_HEAD=${PROTOCOL#*,} ;;
  *) die_usage "--protocol must be 1 (thue.v1), 2 (thue.v2) or B,H (one for each revision)" ;;
esac
IFS=',' read -r -a BENCH_LIST <<< "$BENCHES"
[ "${#BENCH_LIST[@]}" -gt 0 ] || die_usage "--benches is empty"
for b in "${BENCH_LIST[@]}"; do
  case "$b" in
    engine|search|load|cpu|p99|floor) ;;
    instr) command -v valgrind >/dev/null ||
             { echo "bench-compare.sh: instr needs valgrind (apt-get install valgrind)" >&2; exit 1; } ;;
    *) die_usage "unknown bench '$b' (engine, search, load, cpu, p99, floor, instr)" ;;
  esac
done
command -v python3 >/dev/null || { echo "bench-compare.sh: python3 is needed" >&2; exit 1; }

resolve() {
  git -C "$ROOT" rev-parse --verify --quiet "$1^{commit}" ||
    { echo "bench-compare.sh: '$1' is not a revision of this repository" >&2; exit 2; }
}
BASE_SHA=$(resolve "$BASE")
HEAD_SHA=$(resolve "$HEAD")
# thue.v2 came with 3e646da: a revision before it speaks thue.v1 only.
for pair in "$PROTO_BASE:$BASE_SHA" "$PROTO_HEAD:$HEAD_SHA"; do
  sha=${pair#*:}
  if [ "${pair%%:*}" = 2 ] && ! git -C "$ROOT" merge-base --is-ancestor 3e646da "$sha" 2>/dev/null; then
    die_usage "--protocol: ${sha:0:10} predates thue.v2 (3e646da) and speaks thue.v1 only"
  fi
done
proto_of() { if [ "$1" = "$BASE_SHA" ]; then echo "$PROTO_BASE"; else echo "$PROTO_HEAD"; fi; }
mkdir -p "$WORK"

# build SHA: a Release build of thue-server and thue at $WORK/build-SHA (kept for reruns).
build() {
  local sha=$1 src="$WORK/src-$1" out="$WORK/build-$1"
  if [ -x "$out/server/thue-server" ] && [ -x "$out/clients/cli/thue" ]; then
    return 0
  fi
  echo "bench-compare.sh: building ${sha:0:10} (Release) in $out..." >&2
  if [ ! -d "$src" ]; then
    git -C "$ROOT" worktree add --detach "$src" "$sha" >/dev/null 2>&1 ||
      { echo "bench-compare.sh: cannot make a worktree of $sha at $src" >&2; exit 1; }
  fi
  cmake -S "$src" -B "$out" -DCMAKE_BUILD_TYPE=Release -DTHUE_TESTS=OFF >"$WORK/cmake-$sha.log" 2>&1 &&
    cmake --build "$out" -j"$(nproc 2>/dev/null || echo 2)" --target thue-server thue \
      >"$WORK/build-$sha.log" 2>&1 ||
    { echo "bench-compare.sh: the build of $sha failed (see $WORK/build-$sha.log)" >&2; exit 1; }
}
build "$BASE_SHA"
build "$HEAD_SHA"

# The load generator: the working tree's (same client for both servers).
LG_DIR=build/tests/load
for b in "${BENCH_LIST[@]}"; do
  if [ "$b" != engine ] && [ "$b" != search ] &&
     { [ ! -x "$LG_DIR/thue-loadgen" ] || [ ! -x "$LG_DIR/thue-tcp-ceiling" ]; }; then
    echo "bench-compare.sh: building the load generator (scripts/build.sh)..." >&2
    bash scripts/build.sh >/dev/null
  fi
done

OUT="$WORK/run-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"

# instr: the server under callgrind on a free port, 12 matches played one at a time; the
# loop thread's instructions (callgrind's totals of thread 1) per move counted by the
# server's /metrics. Prints moves per million instructions.
instr_run() {
  local bin=$1 f=$2 proto=$3 cg="$2.callgrind" log="$2.server" port="" pid help extra=()
  # Without the background reviews and puzzles, as in scripts/bench.sh: not the moves' cost.
  help=$("$bin" --help 2>&1 || true)
  [[ $help != *--reviews* ]] || extra+=(--reviews 0)
  [[ $help != *--puzzles* ]] || extra+=(--puzzles 0)
  : >"$log" # before the server runs: the port is read from it at once
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$cg" "$bin" --port 0 \
    --bind 127.0.0.1 --db :memory: --log-level warn --threads 1 "${extra[@]}" >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do
    port=$(sed -n 's|^thue-server listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log" | head -n 1)
    [ -n "$port" ] && curl -fsS --max-time 1 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    port=""
    sleep 0.2
  done
  if [ -z "$port" ]; then
    kill "$pid" 2>/dev/null || true
    echo "the server did not start under valgrind (see $log)" >"$f"
    return 1
  fi
  "$LG_DIR/thue-loadgen" --server "ws://127.0.0.1:$port/ws" --protocol "$proto" --matches 1 \
    --max-matches 12 --duration 300 --warmup 0 --seed 7 --json >"$f" 2>&1 || true
  local moves
  moves=$(curl -fsS --max-time 5 "http://127.0.0.1:$port/metrics" | sed -n 's/^thue_moves_total \([0-9]*\)$/\1/p')
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  local ir
  ir=$(sed -n 's/^\(summary\|totals\): \([0-9]*\).*/\2/p' "$cg-01" 2>/dev/null | head -n 1)
  if [ -z "$moves" ] || [ -z "$ir" ] || [ "$moves" -eq 0 ]; then
    echo "no moves or no instruction count (see $log and $cg-01)" >>"$f"
    return 1
  fi
  echo "{\"phase\": \"instr\", \"moves\": $moves, \"loop_instructions\": $ir}" >>"$f"
}

# floor_run LOAD_OUTPUT: thue-tcp-ceiling with the play phase's pairs and timing
# (scripts/bench.sh) and the bytes that load run's players got per move, split between
# the mover and the other player (the ceiling wants two different sizes). Its JSON line.
floor_run() {
  local sizes
  sizes=$(python3 - "$1" <<'EOF'
import json, sys
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    line = line.strip()
    if line.startswith("{"):
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if d.get("phase") == "play":
            total = max(4, round(2 * d["bytes_per_move"]["player"]))
            print(total // 2 + 1, total - total // 2 - 1)
EOF
)
  [ -n "$sizes" ] || { echo "no play phase in $1"; return 1; }
  # shellcheck disable=SC2086 # two numbers
  set -- $sizes
  "$LG_DIR/thue-tcp-ceiling" --pairs 500 --warmup 5 --duration 20 --batch \
    --mover-bytes "$1" --peer-bytes "$2" --json
}

# One bench of one revision: its figure on stdout (higher is better for every one).
#   engine: checks per second at n = 100, 400 and 1600 (the sum of the three rates)
#   search: 1000 / the ms of the six bot games (games per second, x1000)
#   load:   confirmed moves per second
#   cpu:    moves per second of the server's CPU (1e6 / its CPU microseconds per move)
#   p99:    1000 / the load run's round trip p99 in ms
#   floor:  moves per second of thue-tcp-ceiling's server CPU, with that run's bytes
#   instr:  moves per million instructions of the server's loop thread
measure() {
  local bench=$1 sha=$2 round=$3 dir="$WORK/build-$2" f
  f="$OUT/$bench-${sha:0:10}-$round.txt"
  case "$bench" in
    engine)
      "$dir/clients/cli/thue" bench engine --sizes 100,400,1600 --engine-ms 300 --baseline-ms 20 \
        --json >"$f" 2>&1 ;;
    search)
      "$dir/clients/cli/thue" bench search --no-baseline --json >"$f" 2>&1 ;;
    load|cpu|p99|floor)
      local lf="$OUT/load-${sha:0:10}-$round.txt"
      if [ "$bench" = load ] || [ ! -s "$lf" ]; then
        bash scripts/bench.sh --no-build --phases play --server-bin "$dir/server/thue-server" \
          --loadgen-bin "$LG_DIR/thue-loadgen" --protocol "$(proto_of "$sha")" --json >"$lf" 2>&1
      fi && { [ "$lf" = "$f" ] || cp "$lf" "$f"; } &&
        if [ "$bench" = floor ]; then floor_run "$lf" >>"$f"; fi ;;
    instr)
      instr_run "$dir/server/thue-server" "$f" "$(proto_of "$sha")" ;;
  esac || { echo "bench-compare.sh: $bench of ${sha:0:10} failed (see $f)" >&2; return 1; }
  python3 - "$bench" "$f" <<'EOF'
import json, sys
bench, path = sys.argv[1], sys.argv[2]
docs = []
for line in open(path, encoding="utf-8", errors="replace"):
    line = line.strip()
    if line.startswith("{"):
        try:
            docs.append(json.loads(line))
        except ValueError:
            pass
if bench == "engine":
    d = docs[-1]
    print(sum(1e9 / r["engine_ns"] for r in d["rows"]))
elif bench == "search":
    d = docs[-1]
    print(1000.0 / sum(g["ms"] for g in d["games"]))
elif bench == "instr":
    d = [x for x in docs if x.get("phase") == "instr"][-1]
    print(d["moves"] * 1e6 / d["loop_instructions"])
elif bench == "floor":
    d = [x for x in docs if "mover_bytes" in x][-1]
    print(d["moves_per_s"] * 100.0 / d["server_cpu_pct"])
elif bench == "p99":
    d = [x for x in docs if x.get("phase") == "play"][-1]
    print(1000.0 / d["rtt_ms"]["p99"])
elif bench == "cpu":
    d = [x for x in docs if x.get("phase") == "play"][-1]
    print(1e6 / d["server_cpu_us_per_move"])
else:
    d = [x for x in docs if x.get("phase") == "play"][-1]
    print(d["moves_per_s"])
EOF
}

printf '%-7s %-6s %14s %14s %8s\n' bench round "${BASE:0:14}" "${HEAD:0:14}" ratio
: >"$OUT/figures.tsv"
for round in $(seq 1 "$ROUNDS"); do
  for bench in "${BENCH_LIST[@]}"; do
    a=$(measure "$bench" "$BASE_SHA" "$round") || exit 1
    b=$(measure "$bench" "$HEAD_SHA" "$round") || exit 1
    printf '%s\t%s\t%s\t%s\n' "$bench" "$round" "$a" "$b" >>"$OUT/figures.tsv"
    python3 -c "import sys; a,b=float(sys.argv[3]),float(sys.argv[4]); print('%-7s %-6s %14.6g %14.6g %8.3f' % (sys.argv[1], sys.argv[2], a, b, b/a))" \
      "$bench" "$round" "$a" "$b"
  done
done

python3 - "$OUT/figures.tsv" "$BASE_SHA" "$HEAD_SHA" "$ROUNDS" "$JSON" <<'EOF'
import json, sys
path, base, head, rounds, want_json = sys.argv[1:6]
sums = {}
for line in open(path):
    bench, _, a, b = line.split("\t")
    s = sums.setdefault(bench, [0.0, 0.0])
    s[0] += float(a)
    s[1] += float(b)
print()
print("ratio of %s to %s over %s rounds (the sums' ratio; above 1: faster):" % (head[:10], base[:10], rounds))
summary = {"base": base, "head": head, "rounds": int(rounds), "ratios": {}}
for bench, (a, b) in sums.items():
    summary["ratios"][bench] = round(b / a, 4)
    print("  %-7s %.3f" % (bench, b / a))
if want_json == "1":
    print(json.dumps(summary))
EOF
echo "bench-compare.sh: the raw outputs are in $OUT" >&2
