#!/usr/bin/env bash
# 100,000 concurrent WebSocket connections across a cluster of thue-server nodes on this
# machine, measured, not projected (docs/bench.md, "100,000 connections across the
# cluster"). PostgreSQL and Redis come from scripts/services.sh; the nodes run with
# --node nI --redis --db postgres://, each on its own loopback port; the load is several
# thue-loadgen processes from several loopback source addresses. 1,000 connections play
# (500 matches of random legal play, spread over the nodes); the others are idle (they
# say hello, then only answer the server's pings).
#
#   bash scripts/bench-100k.sh           # 100,000 connections on 6 nodes (about 4 minutes)
#   bash scripts/bench-100k.sh --quick   # a smoke test: 3,000 on 3 nodes (under a minute)
#
# Why 6 nodes and not 5 of 20,000: a connection is a descriptor in the node that holds it,
# and one process may hold `ulimit -Hn` descriptors (20,000 on the development machine;
# raising it needs CAP_SYS_RESOURCE). A node keeps 96 in reserve (server/net/peer.c) and
# about 20 for itself (listener, epoll, Redis, PostgreSQL, log), so it takes at most
# about 19,885 connections there: five nodes hold at most about 99,400. Six hold 16,667
# each, with 3,200 to spare. The script computes the fewest nodes that fit and refuses fewer. The
# nodes are reached on their own ports (as /n/NODE/ws would route): HAProxy in front
# would need two descriptors a connection, 200,000 in one process. The load generators
# follow the same rule: one thue-loadgen per node and kind, split when it would pass
# the limit, and at most 10,000 connections from one source address (127.O.x.y: an
# address has 28,232 ephemeral ports; the third left free lets a second run within
# TIME_WAIT's minute find ports; O is drawn for each run).
#
# One run, in this order, on the same nodes:
#   start     PostgreSQL, Redis and the nodes (connection, room and rate limits raised;
#             the server's default keep-alive: --ping-s 30 --idle-s 60); each node's RSS
#             and Redis's used_memory with no connection; the nodes' CPU over a few
#             seconds with no connection (their background: heartbeats, lists).
#   before    the matches alone (one loadgen a node): the move round trip's p99 with
#             nothing else connected; then their connections, sessions and rooms go.
#   connect   the idle connections, on every node at once, at --connect-rate in all;
#             once all are welcomed, the players (one loadgen a node). Connect time:
#             from the first connect to the last of the N connections welcomed.
#   with      the matches' move round trip p99 (a warm-up, then the window) with all N
#             connected; near the window's end each node's RSS, Redis's used_memory,
#             the kernel's socket memory, and the guest names two nodes hold at once.
#   idle      the players leave; once their connections, sessions and rooms are gone,
#             the nodes' CPU over the idle window with the idle connections alone.
#   after     the idle connections close; once the nodes are quiet, the same matches
#             alone again. The p99 with every connection is compared with both alone
#             (before and after, on the same nodes: the machine's drift shows as their
#             difference).
# Per connection: RSS is each node's RSS above its RSS at start, over its connections;
# Redis's used_memory above its start, over all connections; idle CPU is the nodes' CPU
# (every thread, /proc/PID/task/TID/schedstat) over the idle window, per 10,000 idle
# connections, also less the background. The p99 is each node's loadgen's: the table
# shows every node's; the summary the worst node's and the median node's, with every
# connection against alone (the mean of before and after).
#
# Options:
#   --connections N     connections in all, players included (default 100000)
#   --matches M         matches of random legal play, 2M players (default 500)
#   --nodes K           nodes (default: the fewest that fit the open-file limit with
#                       10% to spare, at least 3: 6 for 100,000 under 20,000)
#   --connect-rate R    idle connections opened a second, in all (default 3000: every
#                       hello runs Redis scripts, and at 6000 on the 2-core machine
#                       Redis, starved of CPU, fell more than 5 s behind: the nodes
#                       dropped it and went on alone)
#   --move-rate N       messages a second each connection may send: the nodes' --rate
#                       and --burst, which thue-loadgen keeps under (default 10: a
#                       player moves at most ~9.7 times a second, and 500 matches make
#                       at most ~9,700 moves a second, a pace the 2-core machine takes
#                       without saturating, so that the p99 is a latency and not a
#                       queue); 0: no limit, each match as fast as its node answers
#   --ping-s N          the nodes' --ping-s N --idle-s 2N (default: the server's own,
#                       30 and 60); --ping-s 3600 keeps the keep-alive out of the run
#   --warmup S          the play windows' warm-up, seconds (default 5)
#   --duration S        the play windows, seconds (default 20)
#   --idle-window S     the idle CPU window, seconds, at least (default 65: every idle
#                       connection is pinged twice at the default keep-alive; longer
#                       when the players left sooner than planned)
#   --grace-s N         the nodes' --grace-s (default 5: the players' seats and
#                       sessions are let go this soon after they leave)
#   --quick             3,000 connections, 50 matches, 3 nodes, 1 s + 3 s play windows,
#                       a 3 s idle window, --grace-s 1, and no play before (about 40 s)
#   --build-dir DIR     where the binaries are (default: build)
#   --server-bin FILE   thue-server (default: DIR/server/thue-server)
#   --loadgen-bin FILE  thue-loadgen (default: DIR/tests/load/thue-loadgen)
#   --no-build          do not build; use the binaries as they are
#   --keep-log          keep the temp directory (logs, reports) and print its path
#   --json              print every figure as one JSON object after the table
#   -h, --help          this text
#
# Every load is bounded (timeout), every wait has a deadline, and everything started is
# stopped on exit, Ctrl-C included. Exit status: 0 when every connection came up and
# stayed and no loadgen saw an error; 1 when something failed (the report says what);
# 2 on a bad option or a size that does not fit; 130 on Ctrl-C.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/procs.sh
. scripts/procs.sh

CONNECTIONS=100000
MATCHES=500
NODES=""
CONNECT_RATE=3000
WARMUP=5
DURATION=20
IDLE_WINDOW=65
GRACE=5
PING_S=""
MOVE_RATE=10
QUICK=0
BUILD=1
BUILD_DIR=build
SERVER_BIN=""
LOADGEN_BIN=""
KEEP_LOG=0
JSON=0
PLAYER_CONNECT_RATE=2000  # the players' loadgens' connect rate, each
PER_SOURCE=10000    # connections from one source address, at most
NODE_FDS_EST=64     # a node's own descriptors, before it starts (it has ~18)
FD_RESERVE=96       # what a node keeps beside its connections (server/net/net_internal.h)
LG_FDS=64           # what a loadgen keeps beside its connections (tests/load/loadgen.c)
PROBE_SPARE=100     # --max-connections above a node's share: the script's /metrics probes

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }
die_usage() { echo "bench-100k.sh: $*" >&2; echo "(bash scripts/bench-100k.sh --help lists the options)" >&2; exit 2; }
die() { echo "bench-100k.sh: $*" >&2; exit 1; }
is_uint() { case "$1" in ''|*[!0-9]*) return 1 ;; esac; [ "${#1}" -le 7 ]; }
in_range() { is_uint "$1" && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }      # in_range V LO HI
secs_in() { [[ $1 =~ ^[0-9]{1,4}(\.[0-9]{1,3})?$ ]] && python3 -c "import sys; sys.exit(not $2 <= float('$1') <= $3)"; }

EXPLICIT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --no-build) BUILD=0 ;;
    --keep-log) KEEP_LOG=1 ;;
    --json) JSON=1 ;;
    -h|--help) usage; exit 0 ;;
    --connections|--matches|--nodes|--connect-rate|--move-rate|--ping-s|--warmup|--duration|--idle-window|--grace-s|--build-dir|--server-bin|--loadgen-bin)
      [ $# -ge 2 ] || die_usage "$1 needs a value"
      v=$2
      case "$1" in
        --connections) in_range "$v" 10 1000000 || die_usage "--connections must be 10..1000000, not '$v'"; CONNECTIONS=$v ;;
        --matches) in_range "$v" 1 20000 || die_usage "--matches must be 1..20000, not '$v'"; MATCHES=$v ;;
        --nodes) in_range "$v" 1 64 || die_usage "--nodes must be 1..64, not '$v'"; NODES=$v ;;
        --connect-rate) in_range "$v" 10 100000 || die_usage "--connect-rate must be 10..100000, not '$v'"; CONNECT_RATE=$v ;;
        --ping-s) in_range "$v" 1 3600 || die_usage "--ping-s must be 1..3600, not '$v'"; PING_S=$v ;;
        --move-rate) in_range "$v" 0 10000 || die_usage "--move-rate must be 0..10000, not '$v'"; MOVE_RATE=$v ;;
        --warmup) secs_in "$v" 0 600 || die_usage "--warmup must be 0..600 seconds, not '$v'"; WARMUP=$v ;;
        --duration) secs_in "$v" 1 3600 || die_usage "--duration must be 1..3600 seconds, not '$v'"; DURATION=$v ;;
        --idle-window) secs_in "$v" 1 3600 || die_usage "--idle-window must be 1..3600 seconds, not '$v'"; IDLE_WINDOW=$v ;;
        --grace-s) in_range "$v" 0 60 || die_usage "--grace-s must be 0..60, not '$v'"; GRACE=$v ;;
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
  [[ $EXPLICIT == *--connections* ]] || CONNECTIONS=3000
  [[ $EXPLICIT == *--matches* ]] || MATCHES=50
  [[ $EXPLICIT == *--nodes* ]] || NODES=3
  [[ $EXPLICIT == *--connect-rate* ]] || CONNECT_RATE=3000
  [[ $EXPLICIT == *--warmup* ]] || WARMUP=1
  [[ $EXPLICIT == *--duration* ]] || DURATION=3
  [[ $EXPLICIT == *--idle-window* ]] || IDLE_WINDOW=3
  [[ $EXPLICIT == *--grace-s* ]] || GRACE=1
fi
NODE_RATE=$MOVE_RATE
[ "$NODE_RATE" -gt 0 ] || NODE_RATE=10000
PLAYERS=$((2 * MATCHES))
IDLE=$((CONNECTIONS - PLAYERS))
[ "$IDLE" -ge 0 ] || die_usage "--matches $MATCHES makes $PLAYERS players, more than --connections $CONNECTIONS"
SERVER_BIN=${SERVER_BIN:-$BUILD_DIR/server/thue-server}
LOADGEN_BIN=${LOADGEN_BIN:-$BUILD_DIR/tests/load/thue-loadgen}

# ---- sizes: nodes, loadgens, source addresses -----------------------------------------

HARD=$(ulimit -Hn)
[ "$HARD" = unlimited ] && HARD=1048576
ulimit -n "$HARD" 2>/dev/null || true
# What one node can hold: the hard limit less its reserve, its own descriptors and the
# script's probes.
NODE_CAP=$((HARD - FD_RESERVE - NODE_FDS_EST - PROBE_SPARE))
[ "$NODE_CAP" -ge 100 ] || die_usage "the open-file limit (ulimit -Hn) is $HARD: a node has no room for connections"
MIN_NODES=$(((CONNECTIONS + NODE_CAP - 1) / NODE_CAP))
if [ -z "$NODES" ]; then
  # the fewest that fit with 10% to spare, at least 3 (several nodes is the point)
  NODES=$(((CONNECTIONS * 11 / 10 + NODE_CAP - 1) / NODE_CAP))
  [ "$NODES" -ge 3 ] || NODES=3
fi
[ "$MATCHES" -ge "$NODES" ] || die_usage "--matches $MATCHES is fewer than the $NODES nodes: every node gets matches"
PER_NODE=$(((CONNECTIONS + NODES - 1) / NODES))
if [ "$PER_NODE" -gt "$NODE_CAP" ]; then
  die_usage "$NODES nodes cannot hold $CONNECTIONS connections: one would hold $PER_NODE, and a process may hold $HARD descriptors (ulimit -Hn), of which a node keeps $FD_RESERVE in reserve and some for itself (about 20; $NODE_FDS_EST are allowed for), and this script keeps $PROBE_SPARE for its probes: at most $NODE_CAP connections a node; use --nodes $MIN_NODES or more"
fi
# A loadgen's connections, at most.
LG_CAP=$((HARD - LG_FDS - 1000))
# Node i's idle connections and matches (the remainders to the first nodes).
NODE_IDLE=(); NODE_MATCHES=(); NODE_CONNS=()
for ((i = 0; i < NODES; i++)); do
  m=$((MATCHES / NODES)); [ "$i" -lt $((MATCHES % NODES)) ] && m=$((m + 1))
  n=$((IDLE / NODES)); [ "$i" -lt $((IDLE % NODES)) ] && n=$((n + 1))
  NODE_MATCHES+=("$m"); NODE_IDLE+=("$n"); NODE_CONNS+=($((n + 2 * m)))
done
# The idle loadgens: G_NODE[g], G_COUNT[g] (each under LG_CAP; a node's split evenly).
G_NODE=(); G_COUNT=()
for ((i = 0; i < NODES; i++)); do
  n=${NODE_IDLE[$i]}
  [ "$n" -gt 0 ] || continue
  parts=$(((n + LG_CAP - 1) / LG_CAP))
  for ((p = 0; p < parts; p++)); do
    c=$((n / parts)); [ "$p" -lt $((n % parts)) ] && c=$((c + 1))
    G_NODE+=("$i"); G_COUNT+=("$c")
  done
done
NG=${#G_NODE[@]}
[ "$NG" -le 29 ] || die_usage "$NG idle loadgens: too many (use fewer connections)"
[ "$NODES" -le 50 ] || die_usage "at most 50 nodes"
# Source addresses 127.O.T.j: O drawn per run, T 10+g for idle loadgen g, 40+i, 100+i
# and 160+i for node i's players (before, with the idle connections, after).
OCTET=$((1 + RANDOM % 254))
sources() { # sources VAR THIRD COUNT: VAR = enough addresses for COUNT connections
  local n=$((($3 + PER_SOURCE - 1) / PER_SOURCE)) list="" j
  for ((j = 1; j <= n; j++)); do list+="${list:+,}127.$OCTET.$2.$j"; done
  printf -v "$1" '%s' "$list"
}

# ---- tools and binaries -------------------------------------------------------------------

for t in python3 curl redis-server redis-cli timeout; do
  command -v "$t" >/dev/null || die "$t is needed"
done
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null ||
  die "PostgreSQL's initdb is needed (Debian: apt-get install postgresql)"
if [ "$BUILD" = 1 ]; then
  if [ ! -x "$SERVER_BIN" ] || [ ! -x "$LOADGEN_BIN" ]; then
    echo "bench-100k.sh: building (scripts/build.sh)..." >&2
    bash scripts/build.sh
  else
    cmake --build "$BUILD_DIR" -j"$(nproc 2>/dev/null || echo 2)" --target thue-server thue-loadgen >/dev/null
  fi
fi
for b in "$SERVER_BIN" "$LOADGEN_BIN"; do
  [ -x "$b" ] || die "$b is missing: build first (bash scripts/build.sh)"
done
"$SERVER_BIN" --help 2>/dev/null | grep -q -- '--redis' ||
  die "$SERVER_BIN has no --redis: a server built without cluster support"
EXTRA_FLAGS=()
[ -n "$PING_S" ] && EXTRA_FLAGS+=(--ping-s "$PING_S" --idle-s $((2 * PING_S)))
"$SERVER_BIN" --help 2>/dev/null | grep -q -- '--puzzles' && EXTRA_FLAGS+=(--puzzles 0)
# The kernel's connection tracking, when loaded, holds every connection (and a closed
# one for its TIME_WAIT, 120 s): a full table drops new connections' packets.
CT_MAX=/proc/sys/net/netfilter/nf_conntrack_max
if [ -r "$CT_MAX" ]; then
  ct_free=$(($(cat "$CT_MAX") - $(cat /proc/sys/net/netfilter/nf_conntrack_count)))
  if [ "$ct_free" -lt $((CONNECTIONS + 4 * MATCHES + 1000)) ]; then
    echo "bench-100k.sh: warning: the connection-tracking table has room for $ct_free more entries," \
      "and this run needs about $((CONNECTIONS + 4 * MATCHES)) (closed connections stay in it for" \
      "120 s: a run shortly after another may not fit; sysctl net.netfilter.nf_conntrack_max)" >&2
  fi
fi

# ---- state and cleanup ------------------------------------------------------------------

WORK=$(mktemp -d "${TMPDIR:-/tmp}/thue-bench-100k.XXXXXX")
chmod 755 "$WORK" # PostgreSQL runs as another user under root (scripts/services.sh)
SVC="$WORK/svc"
SVC_UP=0
NODE_PIDS=()
PORTS=()
LOAD_PIDS=()
declare -A TAG_PID=() LAUNCHED=()
FACTS="$WORK/facts"
: >"$FACTS"
START_S=$SECONDS
fact() { echo "$*" >>"$FACTS"; } # fact KEY VALUE...: for the report
problem() { echo "bench-100k.sh: $*" >&2; fact problem "$*"; }

# shellcheck disable=SC2317  # called from cleanup (the EXIT trap)
stop_loads() {
  local p
  for p in "${LOAD_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${LOAD_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  LOAD_PIDS=()
}

# shellcheck disable=SC2317
stop_nodes() { # SIGTERM, then SIGKILL after 10 s
  stop_pids "bench-100k.sh: node" 10 "${NODE_PIDS[@]}"
  NODE_PIDS=()
}

# shellcheck disable=SC2317  # the EXIT trap
cleanup() {
  stop_loads
  stop_nodes
  if [ "$SVC_UP" = 1 ]; then
    bash scripts/services.sh stop "$SVC" >/dev/null 2>&1 || true
  fi
  if [ "$KEEP_LOG" = 1 ]; then
    echo "bench-100k.sh: logs and reports kept in $WORK" >&2
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT
trap 'echo "bench-100k.sh: interrupted" >&2; exit 130' INT TERM

say() { printf 'bench-100k.sh: %5ds  %s\n' $((SECONDS - START_S)) "$*" >&2; }

# ---- samples ----------------------------------------------------------------------------

# The CPU seconds so far, one line: MONOTONIC_S NODES_S REDIS_S PG_S NODE1_S NODE2_S ...
# (every thread's run time, /proc/PID/task/TID/schedstat; PostgreSQL: the postmaster, its
# children, and those it reaped).
cpu_sample() {
  python3 - "$SVC" "${NODE_PIDS[@]}" <<'EOF'
import os, sys, time
svc, nodes = sys.argv[1], [int(p) for p in sys.argv[2:]]
tick = os.sysconf("SC_CLK_TCK")
def stat(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            s = f.read()
    except OSError:
        return None
    r = s[s.rindex(")") + 2:].split()
    return int(r[1]), (int(r[13]) + int(r[14])) / tick  # ppid; cutime + cstime
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
per = [own(p) for p in nodes]
redis = pg = 0.0
rp = pidfile(os.path.join(svc, "redis", "redis.pid"))
if rp:
    redis = own(rp)
pm = pidfile(os.path.join(svc, "pg", "postmaster.pid"))
st = stat(pm) if pm else None
if st:
    pg = own(pm) + st[1]
    for d in os.listdir("/proc"):
        if d.isdigit():
            c = stat(int(d))
            if c and c[0] == pm:
                pg += own(int(d))
print("%.4f %.6f %.6f %.6f %s" % (t, sum(per), redis, pg, " ".join("%.6f" % x for x in per)))
EOF
}

# Memory, one line: REDIS_USED_BYTES REDIS_COMMANDS NODE1_RSS_KIB NODE2_RSS_KIB ...
# (Redis's used_memory, and the commands it has run so far).
mem_sample() {
  local p v out redis
  redis=$(redis-cli -p "$(cat "$SVC/redis.port")" info 2>/dev/null | tr -d '\r' |
    awk -F: '$1 == "used_memory" { m = $2 } $1 == "total_commands_processed" { c = $2 } END { print m + 0, c + 0 }')
  out=${redis:-0 0}
  for p in "${NODE_PIDS[@]}"; do
    v=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$p/status" 2>/dev/null || true)
    out+=" ${v:-0}"
  done
  echo "$out"
}

# Name keys held by two nodes at once (names:<node> in Redis): a guest name given on two
# nodes, which the cluster must never do while Redis is up.
dup_names() {
  local i j n=0 v rp
  rp=$(cat "$SVC/redis.port")
  for ((i = 1; i <= NODES; i++)); do
    for ((j = i + 1; j <= NODES; j++)); do
      v=$(redis-cli -p "$rp" SINTERCARD 2 "thue:names:n$i" "thue:names:n$j" 2>/dev/null || echo 0)
      n=$((n + ${v:-0}))
    done
  done
  echo "$n"
}

# The kernel's memory for sockets, one line: SLAB_BYTES TCP_BUFFER_PAGES: the slab caches
# a TCP connection's socket lives in (its sock, inode, file, epoll entry and bound port;
# not its dentry, a cache that moves with all file activity), active objects x object
# size from /proc/slabinfo (root only, else 0); and the TCP buffers' pages
# (/proc/net/sockstat). System-wide: a loopback connection has both its ends here, and
# whatever else runs on the machine counts too.
kmem_sample() {
  local slab
  slab=$(awk '$1 ~ /^(TCP|sock_inode_cache|filp|eventpoll_epi|tcp_bind_bucket)$/ { b += $2 * $4 } END { print b + 0 }' \
    /proc/slabinfo 2>/dev/null || echo 0)
  echo "${slab:-0} $(awk '$1 == "TCP:" { for (i = 2; i < NF; i++) if ($i == "mem") print $(i + 1) }' /proc/net/sockstat)"
}

metric() { # metric PORT NAME: its value, or -1
  curl -fsS --max-time 5 "http://127.0.0.1:$1/metrics" 2>/dev/null |
    awk -v n="$2" '$1 == n { print $2; found = 1 } END { if (!found) print -1 }'
}

nodes_alive() { all_alive "${NODE_PIDS[@]}"; }

# Waits until every node's metric NAME is at most its LIMIT (limits: one a node); at
# most SECS seconds. 0 when it came, 1 otherwise.
wait_metric() { # wait_metric NAME SECS LIMIT...
  local name=$1 secs=$2; shift 2
  local limits=("$@") end=$((SECONDS + secs)) i v all
  while :; do
    all=1
    for ((i = 0; i < NODES; i++)); do
      v=$(metric "${PORTS[$i]}" "$name")
      v=${v%%.*}
      if [ "$v" -lt 0 ] || [ "$v" -gt "${limits[$i]}" ]; then all=0; break; fi
    done
    [ "$all" = 1 ] && return 0
    [ $SECONDS -lt $end ] || return 1
    nodes_alive || return 1
    sleep 0.25
  done
}

# Waits until the nodes' CPU over a second is under 5% of a core in all (their
# background is far less), at most SECS seconds. Prints the seconds waited.
wait_quiet() { # wait_quiet SECS
  local t0=$SECONDS a b
  while [ $((SECONDS - t0)) -lt "$1" ]; do
    a=$(cpu_sample); sleep 1; b=$(cpu_sample)
    python3 -c "import sys; a, b = [list(map(float, x.split())) for x in sys.argv[1:3]]; sys.exit(not (b[1] - a[1]) / (b[0] - a[0]) < 0.05)" "$a" "$b" && break
  done
  echo $((SECONDS - t0))
}

# ---- nodes and loadgens -----------------------------------------------------------------

# Starts node I (n1, n2, ...): appends its PID to NODE_PIDS and its port to PORTS (not in
# a subshell: it must stay this shell's child, to be stopped and measured).
start_node() { # start_node I
  local i=$1 log="$WORK/n$(($1 + 1)).log"
  : >"$log" # before the server runs: the port is read from it at once
  "$SERVER_BIN" --port 0 --bind 127.0.0.1 --db "$PG_URL" --log-level info \
    --node "n$((i + 1))" --redis "$REDIS_URL" --cluster-secret-file "$SVC/cluster.secret" \
    --max-connections $((NODE_CONNS[i] + PROBE_SPARE)) --max-connections-per-ip 1000000 \
    --max-rooms 100000 --max-rooms-per-player 1000 --room-rate-per-ip 1000000 \
    --rate "$NODE_RATE" --burst "$NODE_RATE" --grace-s "$GRACE" --room-linger-s 5 --reviews 0 \
    "${EXTRA_FLAGS[@]}" >"$log" 2>&1 &
  local pid=$! port=""
  NODE_PIDS+=("$pid")
  for _ in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || { tail -n 20 "$log" >&2; die "node n$((i + 1)) did not start (its log: $log)"; }
    port=$(sed -n 's|^thue-server listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log" | head -n 1)
    if [ -n "$port" ] && grep -q "one of several" "$log" &&
       curl -fsS --max-time 1 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then
      PORTS+=("$port")
      return 0
    fi
    sleep 0.05
  done
  tail -n 20 "$log" >&2
  die "node n$((i + 1)) did not join the cluster in 15 s (its log: $log)"
}

# One thue-loadgen against node I; its report in WORK/TAG.json, its progress in
# WORK/TAG.log. Bounded by BOUND seconds.
launch_lg() { # launch_lg TAG I BOUND ARGS...
  local tag=$1 i=$2 bound=$3
  shift 3
  LAUNCHED[$tag]=$EPOCHREALTIME
  timeout -k 5 "$bound" "$LOADGEN_BIN" --server "ws://127.0.0.1:${PORTS[$i]}/ws" --json -v "$@" \
    >"$WORK/$tag.json" 2>"$WORK/$tag.log" &
  LOAD_PIDS+=("$!")
  TAG_PID[$tag]=$!
}

# Whether FILE has a line holding TEXT, without a process (the machine is busy: a fork
# there can take tens of milliseconds, which the connect time would count).
has_line() { # has_line FILE TEXT
  local l
  [ -r "$1" ] || return 1
  while IFS= read -r l; do [[ $l == *"$2"* ]] && return 0; done <"$1"
  return 1
}
# A pause without a process: a read that times out on a pipe nobody writes to.
exec {PAUSE_FD}<> <(:)
pause() { read -r -t "$1" -u "$PAUSE_FD" _ || true; }

# Waits until every TAG's log has a line holding TEXT; at most SECS seconds. 1 when a
# loadgen ended without it or the time ran out. Not in a subshell: it forks nothing
# while it polls, so that the players start as soon as the idle connections are up.
wait_lines() { # wait_lines TEXT SECS TAG...
  local text=$1 secs=$2; shift 2
  local end=$((SECONDS + secs)) tag all
  while :; do
    all=1
    for tag in "$@"; do
      if ! has_line "$WORK/$tag.log" "$text"; then
        all=0
        kill -0 "${TAG_PID[$tag]}" 2>/dev/null || { echo "bench-100k.sh: loadgen $tag ended before '$text':" >&2; tail -n 5 "$WORK/$tag.log" >&2; return 1; }
        break
      fi
    done
    [ "$all" = 1 ] && return 0
    [ $SECONDS -lt $end ] || { echo "bench-100k.sh: no '$text' from every loadgen in $secs s" >&2; return 1; }
    pause 0.01
  done
}

wait_tags() { # wait_tags TAG...: waits for these loadgens to end (their reports say how)
  local tag
  for tag in "$@"; do wait "${TAG_PID[$tag]}" 2>/dev/null || true; done
}

# The players: one loadgen a node, NODE_MATCHES[i] matches each, from 127.O.THIRD+i.*
# (their addresses worked out before: nothing is forked between launches).
launch_players() { # launch_players PREFIX THIRD
  local prefix=$1 third=$2 i src
  for ((i = 0; i < NODES; i++)); do
    sources src $((third + i)) $((2 * NODE_MATCHES[i]))
    launch_lg "$prefix$i" "$i" "$PLAYER_BOUND" --matches "${NODE_MATCHES[$i]}" --warmup "$WARMUP" \
      --duration "$DURATION" --connect-rate "$PLAYER_CONNECT_RATE" --source "$src"
  done
}
player_tags() { local i; for ((i = 0; i < NODES; i++)); do echo "$1$i"; done; }

# The matches with nothing else connected (before and after): their window's CPU as
# facts PREFIX_cpu0 and PREFIX_cpu1.
play_alone() { # play_alone PREFIX THIRD
  local prefix=$1 tags
  launch_players "$prefix" "$2"
  mapfile -t tags < <(player_tags "$prefix")
  wait_lines "measuring for" $((PLAY_S + 60)) "${tags[@]}" ||
    die "the players' window ($prefix) did not begin"
  fact "${prefix}_cpu0" "$(cpu_sample)"
  sleep "$WINDOW_SLEEP"
  fact "${prefix}_cpu1" "$(cpu_sample)"
  wait_tags "${tags[@]}"
  nodes_alive || die "a node died during the play alone ($prefix)"
}

# ---- the run ----------------------------------------------------------------------------

say "$CONNECTIONS connections ($IDLE idle, $PLAYERS playing $MATCHES matches) on $NODES nodes" \
  "of at most $PER_NODE (a process may hold $HARD descriptors: $MIN_NODES nodes at least);" \
  "$NG idle loadgens, source addresses 127.$OCTET.*.*"
fact sizes "$CONNECTIONS" "$IDLE" "$MATCHES" "$NODES" "$HARD" "$MIN_NODES" "$NG" "$CONNECT_RATE" \
  "$WARMUP" "$DURATION" "$IDLE_WINDOW" "$GRACE" "$QUICK" "$OCTET" "$MOVE_RATE" "${PING_S:-30}"
fact node_idle "${NODE_IDLE[@]}"
fact node_matches "${NODE_MATCHES[@]}"

say "starting PostgreSQL and Redis..."
SVC_UP=1
PG_URL=$(bash scripts/services.sh postgres "$SVC" | sed -n 's/^export THUE_TEST_PG=//p') || die "PostgreSQL did not start"
REDIS_URL=$(bash scripts/services.sh redis "$SVC" | sed -n 's/^export THUE_TEST_REDIS=//p') || die "Redis did not start"
{ [ -n "$PG_URL" ] && [ -n "$REDIS_URL" ]; } || die "the services did not start"
(umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >"$SVC/cluster.secret")

say "starting $NODES nodes..."
for ((i = 0; i < NODES; i++)); do start_node "$i"; done
# What each node holds of its own, and what it will take: a node that fits fewer than
# its share says so in its log ("open files limited to").
NODE_FDS=()
for ((i = 0; i < NODES; i++)); do
  NODE_FDS+=("$(find "/proc/${NODE_PIDS[$i]}/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)")
  if grep -q "open files limited to" "$WORK/n$((i + 1)).log"; then
    lim=$(sed -n 's/.*at most \([0-9]*\) connections.*/\1/p' "$WORK/n$((i + 1)).log" | head -n 1)
    if [ -n "$lim" ] && [ "$lim" -lt "${NODE_CONNS[$i]}" ]; then
      die "node n$((i + 1)) takes at most $lim connections (its log: $(grep -m1 'open files limited' "$WORK/n$((i + 1)).log")), fewer than its ${NODE_CONNS[$i]}: use more --nodes"
    fi
  fi
done
fact node_fds "${NODE_FDS[@]}"
fact ports "${PORTS[@]}"
sleep 2
fact mem0 "$(mem_sample)"
fact kmem0 "$(kmem_sample)"
BG_S=5; [ "$QUICK" = 1 ] && BG_S=1
fact bg0 "$(cpu_sample)"; sleep "$BG_S"; fact bg1 "$(cpu_sample)"

# The timings. The idle loadgens hold their connections for a fixed time from their last
# welcome (--duration): the players' connect and play, their leaving (the settle: their
# grace, their rooms' linger), the idle window and a margin. The idle window then runs
# from the settle's end to just before the first idle loadgen ends: at least
# --idle-window when the settle took no longer than planned, more when it took less.
SETTLE_PLAN=$((GRACE + 9))
SETTLE_MAX=$((GRACE + 40))
read -r RAMP HOLD PLAY_S WINDOW_SLEEP <<<"$(python3 -c "
import math
print('%.1f' % ($IDLE / $CONNECT_RATE), math.ceil(3 + $WARMUP + $DURATION + 3 + $SETTLE_PLAN + $IDLE_WINDOW + 3),
      math.ceil($WARMUP + $DURATION), max(0.2, $DURATION - 1))")"
IDLE_BOUND=$((${RAMP%.*} + 60 + HOLD + 30))
PLAYER_BOUND=$((PLAY_S + 60))
ZEROS=(); for ((i = 0; i < NODES; i++)); do ZEROS+=(0); done

# before: the matches alone, then everything of theirs gone (not in --quick: a smoke
# test compares with the play after only).
if [ "$QUICK" = 0 ]; then
  say "before: $MATCHES matches, nothing else connected..."
  play_alone before 40
  t0=$SECONDS
  wait_metric thue_connections "$SETTLE_MAX" "${ZEROS[@]}" || problem "the players' connections (before) did not all close in $SETTLE_MAX s"
  wait_metric thue_rooms "$SETTLE_MAX" "${ZEROS[@]}" || problem "the players' rooms (before) were not all gone in $SETTLE_MAX s"
  q=$(wait_quiet 20)
  fact settle_before $((SECONDS - t0)) "$q"
fi

# connect: the idle connections, every node at once; the players once they are all up.
IDLE_TAGS=(); IDLE_RATE=(); IDLE_SRC=()
for ((g = 0; g < NG; g++)); do
  r=$(((CONNECT_RATE * G_COUNT[g] + IDLE / 2) / IDLE)); [ "$r" -ge 1 ] || r=1
  sources src $((10 + g)) "${G_COUNT[$g]}"
  IDLE_RATE+=("$r"); IDLE_SRC+=("$src"); IDLE_TAGS+=("idle$g")
done
say "connect: $IDLE idle connections at $CONNECT_RATE/s (planned $RAMP s), held $HOLD s..."
fact connect_cpu0 "$(cpu_sample)"
for ((g = 0; g < NG; g++)); do
  launch_lg "idle$g" "${G_NODE[$g]}" "$IDLE_BOUND" --matches 0 --idle "${G_COUNT[$g]}" \
    --warmup 0 --duration "$HOLD" --connect-rate "${IDLE_RATE[$g]}" --source "${IDLE_SRC[$g]}"
done
if [ "$NG" -gt 0 ]; then
  wait_lines "connections up" $((${RAMP%.*} + 60)) "${IDLE_TAGS[@]}" ||
    die "the idle connections did not come up (see the loadgens' reports with --keep-log)"
fi
launch_players with 100
mapfile -t WITH_TAGS < <(player_tags with)
wait_lines "connections up" 60 "${WITH_TAGS[@]}" || die "the players did not come up"
fact connect_cpu1 "$(cpu_sample)"
# Connect time: from the first loadgen's start to the last welcome, each loadgen's own
# (its start here, plus its connect_s once it has reported).
for tag in "${IDLE_TAGS[@]}" "${WITH_TAGS[@]}"; do fact launched "$tag" "${LAUNCHED[$tag]}"; done
say "connect: all $CONNECTIONS connections are up"
# When the first idle loadgen will end: its start, its "up" (seconds from its start; the
# log's 0.1 s rounded up) and the hold; less 2 s.
IDLE_END=""
if [ "$NG" -gt 0 ]; then
  IDLE_END=$(for tag in "${IDLE_TAGS[@]}"; do
    echo "${LAUNCHED[$tag]} $(sed -n 's/^thue-loadgen: \([0-9.]*\) s: [0-9]* connections up.*/\1/p' "$WORK/$tag.log" | head -n 1)"
  done | python3 -c "import sys; print(min(float(a) + float(b) for a, b in (l.split() for l in sys.stdin)) + $HOLD - 2)")
fi

# play+idle: the players' window; CPU over it, memory near its end.
wait_lines "measuring for" $((PLAY_S + 30)) "${WITH_TAGS[@]}" ||
  die "the players' window did not begin"
say "play with all $CONNECTIONS connected: ${DURATION} s window..."
fact play_cpu0 "$(cpu_sample)"
sleep "$WINDOW_SLEEP"
fact play_cpu1 "$(cpu_sample)"
fact mem_full "$(mem_sample)"
fact kmem_full "$(kmem_sample)"
fact dup_names "$(dup_names)"
wait_tags "${WITH_TAGS[@]}"
nodes_alive || die "a node died during the play with every connection"

# idle: the players are gone once their connections, seats and rooms are.
if [ "$NG" -gt 0 ]; then
  say "idle: waiting for the players' connections, sessions and rooms to go..."
  t0=$SECONDS
  wait_metric thue_connections "$SETTLE_MAX" "${NODE_IDLE[@]}" ||
    problem "the players' connections were not all closed in $SETTLE_MAX s"
  wait_metric thue_rooms $((SETTLE_MAX - (SECONDS - t0))) "${ZEROS[@]}" ||
    problem "the players' rooms were not all gone in $SETTLE_MAX s"
  q=$(wait_quiet $((SETTLE_MAX + 10 - (SECONDS - t0))))
  fact settle_players $((SECONDS - t0)) "$q"
  left=$(python3 -c "import time; print(round($IDLE_END - time.time(), 2))")
  python3 -c "import sys; sys.exit(not $left >= 1)" ||
    die "no idle window is left before the idle loadgens end (the settle took $((SECONDS - t0)) s; planned $SETTLE_PLAN)"
  # shorter than asked (the players took longer to go than planned): said; under half
  # of it, a failure
  if ! python3 -c "import sys; sys.exit(not $left >= $IDLE_WINDOW)"; then
    msg="the idle window is $left s, not the $IDLE_WINDOW asked for: the players took $((SECONDS - t0)) s to go (planned $SETTLE_PLAN)"
    if python3 -c "import sys; sys.exit(not $left >= $IDLE_WINDOW / 2)"; then say "note: $msg"; else problem "$msg"; fi
  fi
  say "idle: the nodes with $IDLE idle connections alone: $left s window..."
  fact idle_cpu0 "$(cpu_sample)"
  sleep "$left"
  fact idle_cpu1 "$(cpu_sample)"
  fact mem_idle "$(mem_sample)"
  for tag in "${IDLE_TAGS[@]}"; do
    kill -0 "${TAG_PID[$tag]}" 2>/dev/null ||
      problem "idle loadgen $tag ended inside the idle window: the window does not hold every idle connection"
  done
  say "idle: waiting for the idle loadgens to end..."
  wait_tags "${IDLE_TAGS[@]}"
  nodes_alive || die "a node died while the idle connections were held"
fi

# after: the same matches with nothing else connected, again.
say "after: waiting for the nodes to close the idle connections and be quiet..."
t0=$SECONDS
wait_metric thue_connections 120 "${ZEROS[@]}" || problem "the idle connections were not all closed in 120 s"
sleep $((GRACE + 1))
q=$(wait_quiet 30)
fact settle_idle $((SECONDS - t0)) "$q"
say "after: $MATCHES matches, nothing else connected..."
play_alone after 160
stop_nodes
LOAD_PIDS=()

# ---- the report -------------------------------------------------------------------------

set +e
python3 - "$WORK" "$JSON" "$SECONDS" <<'EOF'
import json, os, statistics, sys
work, want_json, elapsed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
facts, problems = {}, []
for line in open(os.path.join(work, "facts")):
    k, _, v = line.rstrip("\n").partition(" ")
    if k == "problem":
        problems.append(v)
    else:
        facts[k] = v.split()
num = lambda k: [float(x) for x in facts[k]]
(conns, idle, matches, nodes, hard, min_nodes, ng, rate, warmup, duration, idle_window,
 grace, quick, octet, move_rate, ping_s) = facts["sizes"]
conns, idle, matches, nodes, ng = int(conns), int(idle), int(matches), int(nodes), int(ng)
node_idle = [int(x) for x in facts["node_idle"]]
node_matches = [int(x) for x in facts["node_matches"]]
node_conns = [node_idle[i] + 2 * node_matches[i] for i in range(nodes)]

def load(tag):
    try:
        return json.load(open(os.path.join(work, tag + ".json")))
    except Exception as e:
        problems.append("loadgen %s: no report (%s)" % (tag, e))
        return None

def cpu(a, b):
    """(window s, nodes, redis, pg, per node) CPU seconds between two samples"""
    a, b = num(a), num(b)
    return b[0] - a[0], b[1] - a[1], b[2] - a[2], b[3] - a[3], [b[4 + i] - a[4 + i] for i in range(nodes)]

r = {"connections": conns, "idle": idle, "players": 2 * matches, "matches": matches, "nodes": nodes,
     "nofile_hard": int(hard), "nodes_needed_at_least": int(min_nodes), "idle_loadgens": ng,
     "connect_rate": int(rate), "warmup_s": float(warmup), "duration_s": float(duration),
     "idle_window_s": float(idle_window), "grace_s": int(grace), "move_rate": int(move_rate), "ping_s": int(ping_s),
     "node_connections": node_conns, "node_own_fds": [int(x) for x in facts["node_fds"]]}

# connect
idle_reps = [load("idle%d" % g) for g in range(ng)]
# each loadgen's last welcome: its start here plus its own connect_s
launched = {}
for line in open(os.path.join(work, "facts")):
    if line.startswith("launched "):
        _, tag, t = line.split()
        launched[tag] = float(t)
def up_at(tag, rep):
    return launched[tag] + rep["connections"]["connect_s"] if rep and tag in launched else None
t0 = min(launched.values())
idle_up = [up_at("idle%d" % g, x) for g, x in enumerate(idle_reps)]
with_reps = [load("with%d" % i) for i in range(nodes)]
with_up = [up_at("with%d" % i, x) for i, x in enumerate(with_reps)]
if None not in idle_up + with_up:
    r["connect_s"] = max(idle_up + with_up) - t0
    r["connect_idle_s"] = max(idle_up) - t0 if idle_up else 0
    r["connect_players_s"] = max(with_up) - min(launched["with%d" % i] for i in range(nodes))
    r["players_started_after_idle_s"] = min(launched["with%d" % i] for i in range(nodes)) - (max(idle_up) if idle_up else t0)
else:
    r["connect_s"] = r["connect_idle_s"] = r["connect_players_s"] = r["players_started_after_idle_s"] = None
w, n, rd, pg, per = cpu("connect_cpu0", "connect_cpu1")
r["connect_cpu_pct"] = {"nodes": 100 * n / w, "redis": 100 * rd / w, "pg": 100 * pg / w}
up = sum(x["connections"]["up"] for x in idle_reps if x)
r["idle_up"] = up
r["idle_open_at_end"] = sum(x["connections"]["idle_open_at_end"] for x in idle_reps if x)
if up < idle:
    problems.append("%d of %d idle connections came up" % (up, idle))
if r["idle_open_at_end"] < idle:
    problems.append("%d of %d idle connections were still open when their loadgens ended" % (r["idle_open_at_end"], idle))
for g, x in enumerate(idle_reps):
    if x and x["errors_total"]:
        problems.append("idle loadgen %d: %d errors %s" % (g, x["errors_total"], json.dumps(x["errors"])))

# memory
mem0, full = num("mem0"), num("mem_full")
midle = num("mem_idle") if "mem_idle" in facts else None
r["node_rss_start_mib"] = [x / 1024 for x in mem0[2:]]
r["node_rss_full_mib"] = [x / 1024 for x in full[2:]]
r["node_rss_idle_mib"] = [x / 1024 for x in midle[2:]] if midle else None
r["node_kib_per_conn"] = [(full[2 + i] - mem0[2 + i]) / node_conns[i] for i in range(nodes)]
r["kib_per_conn"] = (sum(full[2:]) - sum(mem0[2:])) / conns
r["kib_per_idle_conn"] = (sum(midle[2:]) - sum(mem0[2:])) / idle if midle and idle else None
r["redis_used_start_b"], r["redis_used_full_b"] = mem0[0], full[0]
r["redis_b_per_conn"] = (full[0] - mem0[0]) / conns
# Redis's commands from the start to the play window's end: the connections' hellos, and
# the players' rooms and matches
r["redis_commands_per_conn"] = (full[1] - mem0[1]) / conns
k0, k1 = num("kmem0"), num("kmem_full")
r["kernel_slab_b_per_conn"] = (k1[0] - k0[0]) / conns if k0[0] and k1[0] else None
r["kernel_tcp_buf_b_per_conn"] = (k1[1] - k0[1]) * 4096 / conns
r["names_on_two_nodes"] = int(facts["dup_names"][0])
if r["names_on_two_nodes"]:
    problems.append("%d guest names were held by two nodes at once" % r["names_on_two_nodes"])

# idle CPU
w, n, rd, pg, per = cpu("bg0", "bg1")
r["background_nodes_cpu_pct"] = 100 * n / w
r["idle_node_cpu_pct"] = [None] * nodes
if "idle_cpu1" in facts:
    w, n, rd, pg, per = cpu("idle_cpu0", "idle_cpu1")
    r["idle_cpu_window_s"] = w
    r["idle_nodes_cpu_pct"] = 100 * n / w
    r["idle_node_cpu_pct"] = [100 * x / w for x in per]
    r["idle_redis_cpu_pct"], r["idle_pg_cpu_pct"] = 100 * rd / w, 100 * pg / w
    r["idle_cpu_pct_per_10k"] = r["idle_nodes_cpu_pct"] / (idle / 10000)
    r["idle_cpu_pct_per_10k_less_background"] = (r["idle_nodes_cpu_pct"] - r["background_nodes_cpu_pct"]) / (idle / 10000)
r["settle_players_s"] = int(facts["settle_players"][0]) if "settle_players" in facts else None
r["settle_idle_s"] = int(facts["settle_idle"][0])
r["settle_before_s"] = int(facts["settle_before"][0]) if "settle_before" in facts else None

# play: alone before, with every connection, alone after
def play(prefix, c0, c1):
    reps = [load("%s%d" % (prefix, i)) for i in range(nodes)]
    out = {"p50_ms": [], "p99_ms": [], "max_ms": [], "moves_per_s": [], "errors": []}
    for i, x in enumerate(reps):
        if x is None:
            for k in out:
                out[k].append(None)
            continue
        out["p50_ms"].append(x["rtt_ms"]["p50"]); out["p99_ms"].append(x["rtt_ms"]["p99"])
        out["max_ms"].append(x["rtt_ms"]["max"]); out["moves_per_s"].append(x["moves_per_s"])
        out["errors"].append(x["errors_total"])
        if x["errors_total"]:
            problems.append("%s loadgen n%d: %d errors %s" % (prefix, i + 1, x["errors_total"], json.dumps(x["errors"])))
        if x["moves_confirmed_window"] == 0:
            problems.append("%s loadgen n%d: no move confirmed in the window" % (prefix, i + 1))
        if x["connections"]["up"] < x["connections"]["planned"]:
            problems.append("%s loadgen n%d: %d of %d players came up" % (prefix, i + 1, x["connections"]["up"], x["connections"]["planned"]))
    ok = [v for v in out["p99_ms"] if v is not None]
    out["p99_worst_ms"] = max(ok) if ok else None
    out["p99_median_ms"] = statistics.median(ok) if ok else None
    out["p50_worst_ms"] = max([v for v in out["p50_ms"] if v is not None], default=None)
    out["moves_per_s_total"] = sum(v for v in out["moves_per_s"] if v is not None)
    if c0 in facts and c1 in facts:
        w, n, rd, pg, per = cpu(c0, c1)
        out["cpu_pct"] = {"nodes": 100 * n / w, "redis": 100 * rd / w, "pg": 100 * pg / w}
    return out
r["play_before"] = play("before", "before_cpu0", "before_cpu1") if "before_cpu1" in facts else None
r["play_with"] = play("with", "play_cpu0", "play_cpu1")
r["play_after"] = play("after", "after_cpu0", "after_cpu1")
b, a2 = r["play_with"], r["play_after"]
# --quick: no play before (a1 has no figures); "alone" is then the play after
a1 = r["play_before"] or {"p99_ms": [None] * nodes, "moves_per_s": [None] * nodes, "p99_worst_ms": None,
                          "p99_median_ms": None, "moves_per_s_total": None}
def mean2(x, y):
    return y if x is None else x if y is None else (x + y) / 2
def ratio(x, y):
    return None if not x or not y else x / y
# alone: the mean of before and after, node by node
a = {"p99_ms": [mean2(x, y) for x, y in zip(a1["p99_ms"], a2["p99_ms"])],
     "moves_per_s": [mean2(x, y) for x, y in zip(a1["moves_per_s"], a2["moves_per_s"])]}
ok = [v for v in a["p99_ms"] if v is not None]
a["p99_worst_ms"] = mean2(a1["p99_worst_ms"], a2["p99_worst_ms"])
a["p99_median_ms"] = mean2(a1["p99_median_ms"], a2["p99_median_ms"])
a["moves_per_s_total"] = mean2(a1["moves_per_s_total"], a2["moves_per_s_total"])
r["play_alone_mean"] = a
r["p99_ratio"] = ratio(b["p99_worst_ms"], a["p99_worst_ms"])
r["p99_median_ratio"] = ratio(b["p99_median_ms"], a["p99_median_ms"])
r["p99_median_ratio_before"] = ratio(b["p99_median_ms"], a1["p99_median_ms"])
r["p99_median_ratio_after"] = ratio(b["p99_median_ms"], a2["p99_median_ms"])
r["p99_ratio_per_node"] = [ratio(x, y) for x, y in zip(b["p99_ms"], a["p99_ms"])]
ok = [v for v in r["p99_ratio_per_node"] if v is not None]
r["p99_ratio_median"] = statistics.median(ok) if ok else None
r["moves_ratio"] = ratio(b["moves_per_s_total"], a["moves_per_s_total"])
r["problems"] = problems
r["elapsed_s"] = elapsed

f = lambda x, fmt: "-" if x is None else fmt % x
print("thue-server: %s connections across %d nodes (PostgreSQL + Redis) on this machine, measured%s"
      % ("{:,}".format(conns), nodes, " (--quick)" if int(quick) else ""))
print("  nodes       %d of at most %s connections each: a process may hold %s descriptors (ulimit -Hn), a node keeps"
      % (nodes, "{:,}".format(max(node_conns)), "{:,}".format(int(hard))))
print("              96 in reserve and %d-%d of its own; %d nodes at least. Each reached on its own port (a balancer in"
      % (min(r["node_own_fds"]), max(r["node_own_fds"]), int(min_nodes)))
print("              front would hold 2 descriptors a connection in one process). %d idle loadgens + %d of players, sources 127.%s.*.*"
      % (ng, nodes, octet))
print("  connect     all %s welcomed in %s s: %s idle at %s/s planned (%.1f s) in %s s, then %s players in %s s (started %s s after)"
      % ("{:,}".format(conns), f(r["connect_s"], "%.2f"), "{:,}".format(idle), "{:,}".format(int(rate)), idle / int(rate),
         f(r["connect_idle_s"], "%.2f"), "{:,}".format(2 * matches), f(r["connect_players_s"], "%.2f"),
         f(r["players_started_after_idle_s"], "%.2f")))
print("              CPU meanwhile: the nodes %.0f%%, Redis %.0f%%, PostgreSQL %.0f%% of a core"
      % (r["connect_cpu_pct"]["nodes"], r["connect_cpu_pct"]["redis"], r["connect_cpu_pct"]["pg"]))
print("  memory      node RSS %.1f KiB a connection with all connected (%.1f-%.1f by node; at start %.1f-%.1f MiB a node);"
      % (r["kib_per_conn"], min(r["node_kib_per_conn"]), max(r["node_kib_per_conn"]),
         min(r["node_rss_start_mib"]), max(r["node_rss_start_mib"])))
print("              %s KiB an idle connection after the players left; Redis used_memory %.0f bytes a connection (%.1f MB in all)"
      % (f(r["kib_per_idle_conn"], "%.1f"), r["redis_b_per_conn"], (full[0] - mem0[0]) / 1e6))
print("  kernel      %s bytes of socket slabs and %.0f bytes of TCP buffers a connection (both its ends: loopback;"
      % (f(r["kernel_slab_b_per_conn"], "%.0f"), max(0.0, r["kernel_tcp_buf_b_per_conn"])))
print("              system-wide, so anything else running counts too)")
print("  Redis       %.1f commands a connection from the start to the end of the play window (hellos, rooms, heartbeats);"
      % r["redis_commands_per_conn"])
print("              names held by two nodes at once: %d" % r["names_on_two_nodes"])
if "idle_cpu_window_s" in r:
    print("  idle CPU    the nodes with %s idle connections over %.0f s (a ping after %d s of silence): %.2f%% of a core in all,"
          % ("{:,}".format(idle), r["idle_cpu_window_s"], int(ping_s), r["idle_nodes_cpu_pct"]))
    print("              %.3f%% per 10,000 connections" % r["idle_cpu_pct_per_10k"])
    print("              (their background with no connection: %.2f%%; less it: %.3f%% per 10,000); Redis %.2f%%, PostgreSQL %.2f%%"
          % (r["background_nodes_cpu_pct"], r["idle_cpu_pct_per_10k_less_background"], r["idle_redis_cpu_pct"], r["idle_pg_cpu_pct"]))
print("  play        %d matches (%s), move round trip p99, alone before / with all connected / alone after:"
      % (matches, "at most %d messages/s a player" % int(move_rate) if int(move_rate) else "no rate limit"))
print("              median node %s / %s / %s ms: x%s of alone (the mean of before and after; x%s of before, x%s of after)"
      % (f(a1["p99_median_ms"], "%.2f"), f(b["p99_median_ms"], "%.2f"), f(a2["p99_median_ms"], "%.2f"),
         f(r["p99_median_ratio"], "%.2f"), f(r["p99_median_ratio_before"], "%.2f"), f(r["p99_median_ratio_after"], "%.2f")))
print("              worst node %s / %s / %s ms: x%s; the nodes' own ratios: median x%s"
      % (f(a1["p99_worst_ms"], "%.2f"), f(b["p99_worst_ms"], "%.2f"), f(a2["p99_worst_ms"], "%.2f"),
         f(r["p99_ratio"], "%.2f"), f(r["p99_ratio_median"], "%.2f")))
print("              moves/s %s / %s / %s (with all connected x%s of alone)"
      % (f(a1["moves_per_s_total"], "%.0f"), f(b["moves_per_s_total"], "%.0f"), f(a2["moves_per_s_total"], "%.0f"),
         f(r["moves_ratio"], "%.2f")))
hdr = ("node", "conns", "own fds", "RSS0 MiB", "RSS MiB", "KiB/conn", "idle CPU%", "p99 before", "p99 with", "p99 after", "ratio", "moves/s with")
rows = []
for i in range(nodes):
    rows.append(("n%d" % (i + 1), str(node_conns[i]), str(r["node_own_fds"][i]), "%.1f" % r["node_rss_start_mib"][i],
                 "%.1f" % r["node_rss_full_mib"][i], "%.2f" % r["node_kib_per_conn"][i], f(r["idle_node_cpu_pct"][i], "%.2f"),
                 f(a1["p99_ms"][i], "%.2f"), f(b["p99_ms"][i], "%.2f"), f(a2["p99_ms"][i], "%.2f"),
                 f(r["p99_ratio_per_node"][i], "%.2f"), f(b["moves_per_s"][i], "%.0f")))
wd = [max(len(x[k]) for x in [hdr] + rows) for k in range(len(hdr))]
for x in [hdr] + rows:
    print("  " + "  ".join(v.rjust(wd[k]) if k else v.ljust(wd[k]) for k, v in enumerate(x)))
for name, d in (("alone before", a1), ("with all connected", b), ("alone after", a2)):
    if "cpu_pct" in d:
        print("  CPU, play %-20s nodes %.0f%%, Redis %.1f%%, PostgreSQL %.1f%% of a core" % (name + ":", d["cpu_pct"]["nodes"], d["cpu_pct"]["redis"], d["cpu_pct"]["pg"]))
print("  settling    %s s after the play before, %s s for the players to go before the idle window, %d s for the idle connections"
      % (f(r["settle_before_s"], "%d"), f(r["settle_players_s"], "%d"), r["settle_idle_s"]))
print("              to go before the play after; run %d s" % elapsed)
if want_json:
    print(json.dumps(r))
if problems:
    print("PROBLEMS:")
    for p in problems:
        print("  " + p)
    sys.exit(1)
EOF
rc=$?
set -e
exit "$rc"
